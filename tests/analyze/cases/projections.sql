# Projections: how one output column's expression maps to upstream columns and a type.

=== bare column keeps its name: passthrough
schema: {"orders": ["id", "amount"]}
sql:
select id, amount from orders
expect:
id      passthrough  orders.id
amount  passthrough  orders.amount

=== qualified bare column
schema: {"orders": ["id", "amount"]}
sql:
select o.id, orders_alias_free.amount from orders as o, orders as orders_alias_free
expect:
id      passthrough  orders.id
amount  passthrough  orders.amount

=== alias to a new name: renamed
schema: {"orders": ["id", "amount"]}
sql:
select id as order_id, amount as amount from orders
expect:
order_id  renamed      orders.id
amount    passthrough  orders.amount

=== parenthesized bare column is still a bare column
schema: {"orders": ["id"]}
sql:
select (id) as order_id, ((id)) as id from orders
expect:
order_id  renamed      orders.id
id        passthrough  orders.id

=== arithmetic over several columns
schema: {"orders": ["id", "price", "quantity", "discount"]}
sql:
select price * quantity - discount as net, price + 0 as price, -price as neg from orders
expect:
net    derived  orders.price orders.quantity orders.discount
price  derived  orders.price
neg    derived  orders.price

=== functions of columns
schema: {"customers": ["first_name", "last_name", "email"]}
sql:
select lower(email) as email, concat(first_name, ' ', last_name) as full_name,
       first_name || ' ' || last_name as full_name2, upper(trim(email)) as e2
from customers
expect:
email       derived  customers.email
full_name   derived  customers.first_name customers.last_name
full_name2  derived  customers.first_name customers.last_name
e2          derived  customers.email

=== CASE: condition, results and else all feed
schema: {"orders": ["status", "amount", "fee", "kind"]}
sql:
select case when status = 'paid' then amount when kind = 'x' then 0 else fee end as v,
       case kind when 'a' then 1 else 2 end as k
from orders
expect:
v  derived  orders.status orders.amount orders.kind orders.fee
k  derived  orders.kind

=== CASE over literals only is source
schema: {"orders": ["id"]}
sql:
select case when 1 = 1 then 'a' else 'b' end as c from orders
expect:
c  source  -

=== CAST, :: and TRY_CAST keep the column but are derived
schema: {"orders": ["id", "amount", "ordered_at"]}
sql:
select cast(id as varchar) as id, amount::decimal(10, 2) as amount, try_cast(ordered_at as date) as order_date
from orders
expect:
id          derived  orders.id
amount      derived  orders.amount
order_date  derived  orders.ordered_at

=== COALESCE with a literal and with two columns
schema: {"orders": ["status", "amount", "fallback_amount"]}
sql:
select coalesce(status, 'unknown') as status, coalesce(amount, fallback_amount, 0) as amount,
       nullif(status, '') as s2, ifnull(amount, 0) as a2
from orders
expect:
status  derived  orders.status
amount  derived  orders.amount orders.fallback_amount
s2      derived  orders.status
a2      derived  orders.amount

=== string and date functions
types: {"events.name": "VARCHAR", "events.created_at": "TIMESTAMP", "events.updated_at": "TIMESTAMP"}
schema: {"events": ["name", "created_at", "updated_at"]}
sql:
select substring(name, 1, 3) as prefix, replace(name, 'a', 'b') as n2, length(name) as len,
       date_trunc('month', created_at) as month, datediff('day', created_at, updated_at) as age_days,
       extract(year from created_at) as yr, created_at + interval 1 day as next_day,
       strftime(created_at, '%Y') as y2
from events
expect:
prefix     derived  events.name
n2         derived  events.name
len        derived  events.name
month      derived  events.created_at
age_days   derived  events.created_at events.updated_at
yr         derived  events.created_at
next_day   derived  events.created_at
y2         derived  events.created_at

=== literals and constant functions are source
schema: {"orders": ["id"]}
sql:
select id, 1 as one, 'x' as label, null as nothing, true as flag, current_timestamp as loaded_at,
       current_date as today, now() as n, cast(null as varchar) as empty, 1 + 2 as three,
       random() as r, gen_random_uuid() as u
from orders
expect:
id         passthrough  orders.id
one        source       -
label      source       -
nothing    source       -
flag       source       -
loaded_at  source       -
today      source       -
n          source       -
empty      source       -
three      source       -
r          source       -
u          source       -

=== struct field access feeds from the base column
schema: {"events": ["id", "payload", "meta"]}
sql:
select payload.user.id as user_id, e.meta.source as src, (payload).kind as kind, payload['k'] as k
from events as e
expect:
user_id  derived  events.payload
src      derived  events.meta
kind     derived  events.payload
k        derived  events.payload

=== JSON field access feeds from the base column
schema: {"events": ["id", "payload"]}
sql:
select payload->>'user_id' as user_id, payload->'items' as items, json_extract(payload, '$.a') as a,
       payload->>'$.b' as b
from events
expect:
user_id  derived  events.payload
items    derived  events.payload
a        derived  events.payload
b        derived  events.payload

=== unnamed expressions take the warehouse's column names
schema: {"orders": ["id", "amount"]}
output: ["id", "sum(amount)", "count_star()"]
sql:
select id, sum(amount), count(*) from orders group by id
expect:
id            passthrough  orders.id
sum(amount)   derived      orders.amount
count_star()  derived      -
conditions:
group_by  orders.id

=== aggregates are derived; count(*) has no upstream
schema: {"orders": ["customer_id", "amount"]}
sql:
select sum(amount) as total, count(*) as n, count(distinct customer_id) as customers, max(amount) as top
from orders
expect:
total      derived  orders.amount
n          derived  -
customers  derived  orders.customer_id
top        derived  orders.amount

=== DuckDB: a name output twice: the later column is x_1, as DuckDB names it
schema: {"orders": ["id", "amount"]}
sql:
select id, amount as x, id as x from orders
expect:
id   passthrough  orders.id
x    renamed      orders.amount
x_1  renamed      orders.id
