# Aggregation and windows: GROUP BY forms, HAVING, windows, QUALIFY, DISTINCT ON, PIVOT.

=== GROUP BY names: the keys are group_by conditions
schema: {"orders": ["customer_id", "status", "amount"]}
sql:
select customer_id, status, sum(amount) as total from orders group by customer_id, status
expect:
customer_id  passthrough  orders.customer_id
status       passthrough  orders.status
total        derived      orders.amount
conditions:
group_by  orders.customer_id
group_by  orders.status

=== GROUP BY ordinals
schema: {"orders": ["customer_id", "ordered_at", "amount"]}
sql:
select customer_id, date_trunc('day', ordered_at) as day, count(*) as n from orders group by 1, 2
expect:
customer_id  passthrough  orders.customer_id
day          derived      orders.ordered_at
n            derived      -
conditions:
group_by  orders.customer_id
group_by  orders.ordered_at

=== GROUP BY ALL (DuckDB)
schema: {"orders": ["customer_id", "status", "amount"]}
sql:
select customer_id, upper(status) as s, sum(amount) as total from orders group by all
expect:
customer_id  passthrough  orders.customer_id
s            derived      orders.status
total        derived      orders.amount
conditions:
group_by  orders.customer_id
group_by  orders.status

=== GROUP BY an expression that is not selected
types: {"orders.ordered_at": "TIMESTAMP", "orders.amount": "INTEGER"}
schema: {"orders": ["customer_id", "ordered_at", "amount"]}
sql:
select sum(amount) as total from orders group by customer_id, year(ordered_at)
expect:
total  derived  orders.amount
conditions:
group_by  orders.customer_id
group_by  orders.ordered_at

=== GROUP BY a select alias
types: {"orders.ordered_at": "TIMESTAMP", "orders.amount": "INTEGER"}
schema: {"orders": ["ordered_at", "amount"]}
sql:
select date_trunc('month', ordered_at) as month, sum(amount) as total from orders group by month
expect:
month  derived  orders.ordered_at
total  derived  orders.amount
conditions:
group_by  orders.ordered_at

=== GROUPING SETS, ROLLUP and CUBE
schema: {"sales": ["region", "country", "product", "amount"]}
sql:
select region, country, product, sum(amount) as total, grouping(region) as g
from sales
group by grouping sets ((region, country), (product), ())
expect:
region   passthrough  sales.region
country  passthrough  sales.country
product  passthrough  sales.product
total    derived      sales.amount
g        derived      sales.region
conditions:
group_by  sales.region
group_by  sales.country
group_by  sales.product

=== ROLLUP
schema: {"sales": ["region", "country", "amount"]}
sql:
select region, country, sum(amount) as total from sales group by rollup (region, country)
expect:
region   passthrough  sales.region
country  passthrough  sales.country
total    derived      sales.amount
conditions:
group_by  sales.region
group_by  sales.country

=== CUBE
schema: {"sales": ["region", "product", "amount"]}
sql:
select region, product, avg(amount) as a from sales group by cube (region, product)
expect:
region   passthrough  sales.region
product  passthrough  sales.product
a        derived      sales.amount
conditions:
group_by  sales.region
group_by  sales.product

=== HAVING
schema: {"orders": ["customer_id", "amount", "status"]}
sql:
select customer_id, count(*) as n from orders group by customer_id having sum(amount) > 100 and max(status) = 'x'
expect:
customer_id  passthrough  orders.customer_id
n            derived      -
conditions:
group_by  orders.customer_id
having    orders.amount
having    orders.status

=== HAVING on a select alias
schema: {"orders": ["customer_id", "amount"]}
sql:
select customer_id, sum(amount) as total from orders group by customer_id having total > 0
expect:
customer_id  passthrough  orders.customer_id
total        derived      orders.amount
conditions:
group_by  orders.customer_id
having    orders.amount

=== aggregate with FILTER and ORDER BY inside
schema: {"orders": ["customer_id", "amount", "status", "ordered_at"]}
sql:
select customer_id, sum(amount) filter (where status = 'paid') as paid,
       string_agg(status, ',' order by ordered_at) as statuses
from orders group by 1
expect:
customer_id  passthrough  orders.customer_id
paid         derived      orders.amount orders.status
statuses     derived      orders.status orders.ordered_at
conditions:
group_by  orders.customer_id

=== ranking window: no upstream, PARTITION BY and ORDER BY are window conditions
schema: {"orders": ["id", "customer_id", "ordered_at"]}
sql:
select id, row_number() over (partition by customer_id order by ordered_at) as seq from orders
expect:
id   passthrough  orders.id
seq  derived      -
conditions:
window  orders.customer_id
window  orders.ordered_at

=== aggregate window: the argument feeds, the window spec conditions
schema: {"orders": ["id", "customer_id", "ordered_at", "amount"]}
sql:
select id, sum(amount) over (partition by customer_id order by ordered_at rows between unbounded preceding and current row) as running,
       lag(amount, 1) over (order by ordered_at) as prev,
       first_value(id) over (partition by customer_id order by ordered_at) as first_id
from orders
expect:
id        passthrough  orders.id
running   derived      orders.amount
prev      derived      orders.amount
first_id  derived      orders.id
conditions:
window  orders.customer_id
window  orders.ordered_at

=== named window (WINDOW clause)
schema: {"orders": ["id", "customer_id", "ordered_at"]}
sql:
select id, rank() over w as r from orders window w as (partition by customer_id order by ordered_at)
expect:
id  passthrough  orders.id
r   derived      -
conditions:
window  orders.customer_id
window  orders.ordered_at

=== QUALIFY: the window's refs are qualify conditions
schema: {"orders": ["id", "customer_id", "ordered_at"]}
sql:
select id, customer_id from orders qualify row_number() over (partition by customer_id order by ordered_at desc) = 1
expect:
id           passthrough  orders.id
customer_id  passthrough  orders.customer_id
conditions:
qualify  orders.customer_id
qualify  orders.ordered_at

=== QUALIFY on a selected window column
schema: {"orders": ["id", "customer_id", "ordered_at"]}
sql:
select id, row_number() over (partition by customer_id order by ordered_at) as rn from orders qualify rn = 1
expect:
id  passthrough  orders.id
rn  derived      -
conditions:
window   orders.customer_id
window   orders.ordered_at
qualify  orders.customer_id
qualify  orders.ordered_at

=== a filter on a window column conditions its window refs
schema: {"orders": ["id", "customer_id", "ordered_at"]}
sql:
with ranked as (select id, row_number() over (partition by customer_id order by ordered_at) as rn from orders)
select id from ranked where rn = 1
expect:
id  passthrough  orders.id
conditions:
window  orders.customer_id
window  orders.ordered_at
where   orders.customer_id
where   orders.ordered_at

=== window over an aggregate
schema: {"orders": ["customer_id", "amount"]}
sql:
select customer_id, sum(amount) as total, rank() over (order by sum(amount) desc) as r from orders group by 1
expect:
customer_id  passthrough  orders.customer_id
total        derived      orders.amount
r            derived      -
conditions:
group_by  orders.customer_id
window    orders.amount

=== DISTINCT ON keys are group_by conditions, its ORDER BY is order_by
schema: {"events": ["user_id", "ts", "page"]}
sql:
select distinct on (user_id) user_id, page from events order by user_id, ts desc
expect:
user_id  passthrough  events.user_id
page     passthrough  events.page
conditions:
group_by  events.user_id
order_by  events.user_id
order_by  events.ts

=== plain DISTINCT adds no condition
schema: {"events": ["user_id", "page"]}
sql:
select distinct user_id, page from events
expect:
user_id  passthrough  events.user_id
page     passthrough  events.page

=== PIVOT with an IN list (Snowflake)
dialect: snowflake
schema: {"SALES": ["REGION", "MONTH", "AMOUNT"]}
sql:
select * from sales pivot (sum(amount) for month in ('JAN', 'FEB')) as p
expect:
region  passthrough  sales.region
'jan'   derived      sales.amount sales.month
'feb'   derived      sales.amount sales.month
conditions:
group_by  sales.region

=== PIVOT with aliases and two aggregates (DuckDB)
schema: {"sales": ["region", "month", "amount"]}
sql:
select region, j_s, j_c, feb_s from sales pivot (sum(amount) as s, count(*) as c for month in ('jan' as j, 'feb'))
expect:
region  passthrough  sales.region
j_s     derived      sales.amount sales.month
j_c     derived      sales.month
feb_s   derived      sales.amount sales.month
conditions:
group_by  sales.region

=== PIVOT of a subquery
dialect: snowflake
schema: {"SALES": ["REGION", "MONTH", "AMOUNT", "OTHER"]}
sql:
select p.region, "'JAN'" as jan from (select region, month, amount from sales) pivot (sum(amount) for month in ('JAN', 'FEB')) as p
expect:
region  passthrough  sales.region
jan     derived      sales.amount sales.month
conditions:
group_by  sales.region

=== PIVOT over ANY: unresolved with a reason
dialect: snowflake
status: unresolved
reason: known only from the data
schema: {"SALES": ["REGION", "MONTH", "AMOUNT"]}
sql:
select * from sales pivot (sum(amount) for month in (ANY order by month)) as p
expect:

=== UNPIVOT (Snowflake)
dialect: snowflake
schema: {"MONTHLY": ["REGION", "JAN", "FEB"]}
sql:
select * from monthly unpivot (amount for month in (jan, feb)) as u
expect:
region  passthrough  monthly.region
month   source       -
amount  renamed      monthly.jan monthly.feb

=== UNPIVOT with several value columns (BigQuery)
dialect: bigquery
schema: {"sales": ["id", "a1", "b1", "a2", "b2"]}
sql:
select * from sales unpivot ((a, b) for k in ((a1, b1) as 'x', (a2, b2) as 'y'))
expect:
id  passthrough  sales.id
k   source       -
a   renamed      sales.a1 sales.a2
b   renamed      sales.b1 sales.b2

=== DuckDB's PIVOT statement: unresolved with a reason
status: unresolved
reason: no SELECT
schema: {"sales": ["region", "month", "amount"]}
sql:
pivot sales on month in ('jan', 'feb') using sum(amount) group by region
expect:

=== a named window built on another named window
schema: {"t": ["id", "a", "b"]}
sql:
select a, sum(b) over w2 as s from t window w1 as (partition by id), w2 as (w1 order by a)
expect:
a  passthrough  t.a
s  derived      t.b
conditions:
window  t.id
window  t.a

=== an aggregate of a constant column is still a constant; count(*) is derived
schema: {"orders": ["customer_id", "amount"]}
sql:
with dated as (select customer_id, extract(year from current_date) as as_of_year from orders)
select customer_id, sum(as_of_year) as total_year, count(*) as n, max(as_of_year) over (partition by customer_id) as w
from dated group by customer_id, as_of_year
expect:
customer_id  passthrough  orders.customer_id
total_year   source       -
n            derived      -
w            derived      -
conditions:
group_by  orders.customer_id
window    orders.customer_id
