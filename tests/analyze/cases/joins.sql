# Joins: every kind, self-joins, USING, NATURAL, lateral joins, UNNEST and FLATTEN.

=== inner join: columns from both sides, ON keys are join conditions
schema: {"orders": ["id", "customer_id", "amount"], "customers": ["id", "name"]}
sql:
select o.id, c.name, o.amount from orders o inner join customers c on o.customer_id = c.id
expect:
id      passthrough  orders.id
name    passthrough  customers.name
amount  passthrough  orders.amount
conditions:
join  orders.customer_id
join  customers.id

=== left, right and full joins
schema: {"a": ["id", "x"], "b": ["id", "y"], "c": ["id", "z"], "d": ["id", "w"]}
sql:
select a.x, b.y, c.z, d.w from a left join b on a.id = b.id right join c on c.id = b.id full outer join d on d.id = a.id
expect:
x  passthrough  a.x
y  passthrough  b.y
z  passthrough  c.z
w  passthrough  d.w
conditions:
join  a.id
join  b.id
join  c.id
join  d.id

=== cross join and comma join
schema: {"a": ["x"], "b": ["y"], "c": ["z"]}
sql:
select x, y, z from a cross join b, c
expect:
x  passthrough  a.x
y  passthrough  b.y
z  passthrough  c.z

=== join condition with a filter on one side and a function
schema: {"a": ["id", "k", "active"], "b": ["id", "k2"]}
sql:
select a.id from a join b on lower(a.k) = lower(b.k2) and a.active
expect:
id  passthrough  a.id
conditions:
join  a.k
join  a.active
join  b.k2

=== self-join: two aliases of one relation
schema: {"employees": ["id", "manager_id", "name"]}
sql:
select e.name as employee, m.name as manager from employees e left join employees m on e.manager_id = m.id
expect:
employee  renamed  employees.name
manager   renamed  employees.name
conditions:
join  employees.manager_id
join  employees.id

=== USING: the merged key feeds from both sides
schema: {"orders": ["id", "customer_id", "amount"], "customers": ["customer_id", "name"]}
sql:
select customer_id, name, amount from orders join customers using (customer_id)
expect:
customer_id  passthrough  orders.customer_id customers.customer_id
name         passthrough  customers.name
amount       passthrough  orders.amount
conditions:
join  orders.customer_id
join  customers.customer_id

=== USING with a qualified key reads one side only
schema: {"orders": ["id", "customer_id"], "customers": ["customer_id", "name"]}
sql:
select orders.customer_id as ocid, c.customer_id as ccid from orders join customers c using (customer_id)
expect:
ocid  renamed  orders.customer_id
ccid  renamed  customers.customer_id
conditions:
join  orders.customer_id
join  customers.customer_id

=== USING over three relations
schema: {"a": ["k", "x"], "b": ["k", "y"], "c": ["k", "z"]}
sql:
select k, x, y, z from a join b using (k) join c using (k)
expect:
k  passthrough  a.k b.k c.k
x  passthrough  a.x
y  passthrough  b.y
z  passthrough  c.z
conditions:
join  a.k
join  b.k
join  c.k

=== select * over a USING join lists the key once
schema: {"a": ["k", "x"], "b": ["k", "y"]}
sql:
select * from a join b using (k)
expect:
k  passthrough  a.k b.k
x  passthrough  a.x
y  passthrough  b.y
conditions:
join  a.k
join  b.k

=== NATURAL join merges the common columns
schema: {"a": ["k", "j", "x"], "b": ["j", "k", "y"]}
sql:
select * from a natural join b
expect:
k  passthrough  a.k b.k
j  passthrough  a.j b.j
x  passthrough  a.x
y  passthrough  b.y
conditions:
join  a.k
join  b.k
join  a.j
join  b.j

=== SEMI and ANTI joins add no columns to the star
schema: {"a": ["id", "x"], "b": ["id", "y"]}
sql:
select * from a semi join b on a.id = b.id
expect:
id  passthrough  a.id
x   passthrough  a.x
conditions:
join  a.id
join  b.id

=== ASOF join: the match condition is a join condition
schema: {"trades": ["sym", "ts", "px"], "quotes": ["sym", "ts", "bid"]}
sql:
select t.sym, t.px, q.bid from trades t asof join quotes q on t.sym = q.sym and t.ts >= q.ts
expect:
sym  passthrough  trades.sym
px   passthrough  trades.px
bid  passthrough  quotes.bid
conditions:
join  trades.sym
join  trades.ts
join  quotes.sym
join  quotes.ts

=== UNNEST of an array column (DuckDB, in SELECT)
schema: {"orders": ["id", "tags"]}
sql:
select id, unnest(tags) as tag from orders
expect:
id   passthrough  orders.id
tag  derived      orders.tags

=== UNNEST in FROM with an alias and a column list (Postgres)
dialect: postgres
schema: {"orders": ["id", "tags"]}
sql:
select o.id, t.tag from orders o cross join lateral unnest(o.tags) as t(tag)
expect:
id   passthrough  orders.id
tag  derived      orders.tags

=== UNNEST in FROM (BigQuery): the alias names the element
dialect: bigquery
schema: {"orders": ["id", "items"]}
sql:
select o.id, item.sku, item from orders as o, unnest(o.items) as item
expect:
id    passthrough  orders.id
sku   derived      orders.items
item  derived      orders.items

=== UNNEST WITH OFFSET (BigQuery)
dialect: bigquery
schema: {"orders": ["id", "items"]}
sql:
select o.id, item, pos from orders as o cross join unnest(o.items) as item with offset as pos
expect:
id    passthrough  orders.id
item  derived      orders.items
pos   derived      orders.items

=== LATERAL FLATTEN (Snowflake)
dialect: snowflake
schema: {"EVENTS": ["ID", "PAYLOAD"]}
sql:
select e.id, f.value:sku::string as sku, f.index as pos from events e, lateral flatten(input => e.payload:items) f
expect:
id   passthrough  events.id
sku  derived      events.payload
pos  derived      events.payload

=== lateral subquery join
dialect: postgres
schema: {"customers": ["id", "name"], "orders": ["customer_id", "amount", "ordered_at"]}
sql:
select c.name, last_o.amount
from customers c
cross join lateral (select o.amount from orders o where o.customer_id = c.id order by o.ordered_at desc limit 1) as last_o
expect:
name    passthrough  customers.name
amount  passthrough  orders.amount
conditions:
where     orders.customer_id
where     customers.id
order_by  orders.ordered_at

=== join to a subquery and a CTE
schema: {"orders": ["id", "customer_id", "amount"], "customers": ["id", "name"]}
sql:
with totals as (select customer_id, sum(amount) as total from orders group by customer_id)
select c.name, t.total, s.n
from customers c
left join totals t on t.customer_id = c.id
left join (select customer_id, count(*) as n from orders group by 1) s on s.customer_id = c.id
expect:
name   passthrough  customers.name
total  derived      orders.amount
n      derived      -
conditions:
group_by  orders.customer_id
join      orders.customer_id
join      customers.id

=== Snowflake TABLE(FLATTEN(...)) joined to its input
dialect: snowflake
schema: {"T": ["ID", "ARR"]}
sql:
select t.id, f.value, f.index from t, table(flatten(t.arr)) f
expect:
id     passthrough  t.id
value  derived      t.arr
index  derived      t.arr

=== generate_series over scalar subqueries (Postgres): derived from what the subqueries read
dialect: postgres
schema: {"public.orders": ["id", "created_at", "status"]}
sql:
select d::date as day
from generate_series(
  (select min(created_at) from public.orders),
  (select max(created_at) from public.orders where status = 'paid'),
  interval '1 day'
) as d
expect:
day  derived  public.orders.created_at
conditions:
where  public.orders.status

=== set-returning functions beside a relation (Postgres): each alias names its one column
dialect: postgres
schema: {"public.bounds": ["lo", "hi"], "public.orders": ["id", "items", "tags"]}
sql:
select o.id, y, e.key, e.value as item, t
from public.orders o,
  generate_series((select min(lo) from public.bounds), (select max(hi) from public.bounds)) as y,
  jsonb_each(o.items -> 'lines') as e
cross join lateral unnest(string_to_array(o.tags, ',')) as t
expect:
id    passthrough  public.orders.id
y     derived      public.bounds.lo public.bounds.hi
key   derived      public.orders.items
item  derived      public.orders.items
t     derived      public.orders.tags

=== LATERAL generate_series of a CTE's columns (Postgres)
dialect: postgres
schema: {"public.orders": ["id", "created_at"]}
sql:
with b as (select min(created_at) as lo, max(created_at) as hi from public.orders)
select d::date as day from b cross join lateral generate_series(b.lo, b.hi, interval '1 day') as d
expect:
day  derived  public.orders.created_at

=== range and generate_series over scalar subqueries (DuckDB)
schema: {"t": ["id", "lo", "hi"]}
sql:
select r.range as n, g.d from range((select min(lo) from t), (select max(hi) from t)) r,
  generate_series((select min(lo) from t), 10) as g(d)
expect:
n  derived  t.lo t.hi
d  derived  t.lo

=== UNNEST of an array built from scalar subqueries (BigQuery)
dialect: bigquery
schema: {"p.d.t": ["id", "lo", "hi"]}
sql:
select d from unnest(generate_date_array((select min(lo) from `p.d.t`), (select max(hi) from `p.d.t`))) as d
expect:
d  derived  p.d.t.lo p.d.t.hi

=== LATERAL FLATTEN of a scalar subquery (Snowflake)
dialect: snowflake
schema: {"CONFIG": ["ID", "LIST"]}
sql:
select f.value::string as item from lateral flatten(input => (select max(list) from config)) f
expect:
item  derived  config.list

=== USING with a relation whose columns are unknown: the key is still from both sides
schema: {"t": ["id", "a"], "v": null}
sql:
select id, a, k from v join t using (id)
expect:
id  passthrough  v.id t.id
a   passthrough  t.a
k   passthrough  v.k
conditions:
join  v.id
join  t.id

=== a USING chain over three relations, one of unknown columns
schema: {"t": ["id", "a"], "u": ["id", "c"], "v": null}
sql:
select id from t join u using (id) join v using (id)
expect:
id  passthrough  t.id u.id v.id
conditions:
join  t.id
join  u.id
join  v.id
