# Dialect-specific syntax of the warehouses dbt runs on.

=== Snowflake: IFF, semi-structured paths, casts, QUALIFY
dialect: snowflake
schema: {"DB.RAW.EVENTS": ["ID", "PAYLOAD", "USER_ID", "TS"]}
sql:
select id,
       payload:customer.name::string as customer_name,
       iff(payload:amount::number > 0, 'pos', 'neg') as sign,
       to_date(ts) as day,
       dateadd(day, 1, ts) as next_day
from db.raw.events
qualify row_number() over (partition by user_id order by ts desc) = 1
expect:
id             passthrough  db.raw.events.id
customer_name  derived      db.raw.events.payload
sign           derived      db.raw.events.payload
day            derived      db.raw.events.ts
next_day       derived      db.raw.events.ts
conditions:
qualify  db.raw.events.user_id
qualify  db.raw.events.ts

=== Snowflake: unquoted output names fold to upper case in the catalog
dialect: snowflake
schema: {"DB.RAW.EVENTS": ["ID"]}
output: ["ID", "N"]
sql:
select id, 1 as n from db.raw.events
expect:
id  passthrough  db.raw.events.id
n   source       -

=== BigQuery: SAFE_CAST, struct fields, DATE_TRUNC, arrays
dialect: bigquery
schema: {"proj.ds.orders": ["id", "customer", "amount", "ordered_at", "items"]}
sql:
select id, customer.name as customer_name, safe_cast(amount as numeric) as amount,
       date_trunc(ordered_at, month) as month, array_length(items) as n_items,
       (select sum(i.qty) from unnest(items) as i) as qty
from `proj.ds.orders`
expect:
id             passthrough  proj.ds.orders.id
customer_name  derived      proj.ds.orders.customer
amount         derived      proj.ds.orders.amount
month          derived      proj.ds.orders.ordered_at
n_items        derived      proj.ds.orders.items
qty            derived      proj.ds.orders.items

=== BigQuery: EXCEPT DISTINCT set operation
dialect: bigquery
schema: {"proj.ds.a": ["id"], "proj.ds.b": ["id"]}
sql:
select id from proj.ds.a except distinct select id from proj.ds.b
expect:
id  passthrough  proj.ds.a.id proj.ds.b.id

=== Postgres: :: casts, DISTINCT ON, ILIKE, string functions
dialect: postgres
schema: {"public.users": ["id", "email", "created_at", "org_id"]}
sql:
select distinct on (org_id) org_id, id::text as id, split_part(email, '@', 2) as domain, created_at::date as day
from public.users
where email ilike '%@%'
order by org_id, created_at desc
expect:
org_id  passthrough  public.users.org_id
id      derived      public.users.id
domain  derived      public.users.email
day     derived      public.users.created_at
conditions:
where     public.users.email
group_by  public.users.org_id
order_by  public.users.org_id
order_by  public.users.created_at

=== Postgres: FILTER feeds like a CASE inside the aggregate; generate_series in FROM
dialect: postgres
schema: {"public.orders": ["id", "status"]}
sql:
select d as day, (select count(*) filter (where status = 'paid') from public.orders) as paid
from generate_series(1, 3) as d
expect:
day   source   -
paid  derived  public.orders.status

=== Postgres: a JSON operator passed to a function keeps its column
dialect: postgres
schema: {"public.events": ["id", "payload", "kind"]}
sql:
select id,
       coalesce(payload->'customer', '{}') as customer,
       lower(payload->'a'->>'b') as ab,
       jsonb_array_length(payload->'items') as n_items,
       coalesce(payload->'paid' = 'true', false) as paid,
       to_timestamp(payload->>'ts', 'YYYY') as ts
from public.events
where coalesce(kind->>'name', '') <> ''
expect:
id        passthrough  public.events.id
customer  derived      public.events.payload
ab        derived      public.events.payload
n_items   derived      public.events.payload
paid      derived      public.events.payload
ts        derived      public.events.payload
conditions:
where  public.events.kind

=== Redshift: GETDATE, NVL, DATEADD, LISTAGG
dialect: redshift
schema: {"analytics.orders": ["id", "customer_id", "status", "created_at"]}
sql:
select customer_id, nvl(max(status), 'none') as last_status, dateadd(day, 7, max(created_at)) as due,
       listagg(id, ',') within group (order by created_at) as ids, getdate() as loaded_at
from analytics.orders
group by customer_id
expect:
customer_id  passthrough  analytics.orders.customer_id
last_status  derived      analytics.orders.status
due          derived      analytics.orders.created_at
ids          derived      analytics.orders.id analytics.orders.created_at
loaded_at    source       -
conditions:
group_by  analytics.orders.customer_id

=== Databricks: backticks, explode, struct access, named_struct
dialect: databricks
schema: {"main.sales.orders": ["id", "items", "meta"]}
sql:
select o.id, `meta`.source as src, named_struct('a', o.id) as s, explode(o.items) as item
from main.sales.orders as o
expect:
id    passthrough  main.sales.orders.id
src   derived      main.sales.orders.meta
s     derived      main.sales.orders.id
item  derived      main.sales.orders.items

=== Spark: LATERAL VIEW explode
dialect: spark
schema: {"sales.orders": ["id", "items"]}
sql:
select o.id, item from sales.orders o lateral view explode(o.items) t as item
expect:
id    passthrough  sales.orders.id
item  derived      sales.orders.items

=== DuckDB: list comprehension and struct_pack
schema: {"orders": ["id", "items", "amount"]}
sql:
select id, [x * 2 for x in items] as doubled, struct_pack(a := amount) as s, list_transform(items, x -> x + 1) as plus
from orders
expect:
id       passthrough  orders.id
doubled  derived      orders.items
s        derived      orders.amount
plus     derived      orders.items

=== DuckDB: a JSON operator passed to a function keeps its column; lambdas stay lambdas
schema: {"events": ["id", "payload", "items"]}
sql:
select coalesce(payload->'a'->>'b', 'x') as ab, json_array_length(payload->'items') as n,
       list_transform(items, x -> x + 1) as plus, list_filter(items, x -> true) as kept,
       list_reduce(items, (a, b) -> a + b) as total
from events
expect:
ab     derived  events.payload
n      derived  events.payload
plus   derived  events.items
kept   derived  events.items
total  derived  events.items

=== MySQL: a JSON operator passed to a function keeps its column
dialect: mysql
schema: {"shop.events": ["id", "payload"]}
sql:
select id, ifnull(payload->>'$.name', '') as name, json_length(payload->'$.items') as n
from shop.events
expect:
id    passthrough  shop.events.id
name  derived      shop.events.payload
n     derived      shop.events.payload

=== Snowflake: $n and t.$n are the relation's n-th column
dialect: snowflake
status: partial
schema: {"DB.S.T": ["ID", "V", "TS"]}
output: ["ID", "$2", "TS1", "NINE"]
sql:
select t.$1 as id, $2, $3 + 1 as ts1, $9 as nine from db.s.t t where $2 > 0
expect:
id    passthrough  db.s.t.id
$2    renamed      db.s.t.v
ts1   derived      db.s.t.ts
nine  unknown      unresolved
conditions:
where  db.s.t.v

=== Postgres: $1 is a bind parameter, a value given at run time
dialect: postgres
schema: {"public.t": ["id"]}
sql:
select id, $1 as p from public.t
expect:
id  passthrough  public.t.id
p   source       -
