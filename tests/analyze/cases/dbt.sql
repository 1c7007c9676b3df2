# dbt specifics: ephemeral models, {{ this }}, sources with identifiers, other packages.

=== an ephemeral model is read as its own node
ephemeral: {"int_orders": ["order_id", "total"]}
schema: {"raw.orders": ["id", "amount"]}
sql:
with __dbt__cte__int_orders as (
  select id as order_id, amount * 2 as total from raw.orders
), final as (
  select order_id, total as order_total from __dbt__cte__int_orders
)
select * from final
expect:
order_id     passthrough  int_orders.order_id
order_total  renamed      int_orders.total

=== nested ephemeral models: only the one read directly is an upstream
ephemeral: {"eph_a": ["id", "x"], "eph_b": ["id", "y"]}
schema: {"raw.t": ["id", "x"]}
sql:
with __dbt__cte__eph_a as (
  select id, x from raw.t
), __dbt__cte__eph_b as (
  select id, x + 1 as y from __dbt__cte__eph_a
)
select b.id, b.y from __dbt__cte__eph_b b where b.y > 0
expect:
id  passthrough  eph_b.id
y   passthrough  eph_b.y
conditions:
where  eph_b.y

=== ephemeral read next to a table, joined
ephemeral: {"eph": ["id", "score"]}
schema: {"customers": ["id", "name"]}
sql:
with __dbt__cte__eph as (select 1 as id, 2 as score)
select c.name, e.score from customers c left join __dbt__cte__eph e on e.id = c.id
expect:
name   passthrough  customers.name
score  passthrough  eph.score
conditions:
join  eph.id
join  customers.id

=== an ephemeral CTE that is not a known node stays a CTE
schema: {"raw.t": ["id"]}
sql:
with __dbt__cte__unknown_eph as (select id from raw.t)
select id from __dbt__cte__unknown_eph
expect:
id  passthrough  raw.t.id

=== incremental model reading {{ this }}: a condition, no self edge
this: "db"."main"."daily"
output: ["order_date", "n"]
schema: {"db.main.orders": ["order_date", "id"]}
sql:
select order_date, count(id) as n
from "db"."main"."orders"
where order_date >= (select max(order_date) from "db"."main"."daily")
group by 1
expect:
order_date  passthrough  db.main.orders.order_date
n           derived      db.main.orders.id
conditions:
where     db.main.orders.order_date
where     self.order_date
group_by  db.main.orders.order_date

=== incremental merge reading {{ this }} in a join: the value from this is not an edge
this: "db"."main"."dim"
output: ["id", "first_seen"]
schema: {"db.main.events": ["id", "ts"]}
sql:
select e.id, least(e.ts, coalesce(d.first_seen, e.ts)) as first_seen
from "db"."main"."events" e left join "db"."main"."dim" d on d.id = e.id
expect:
id          passthrough  db.main.events.id
first_seen  derived      db.main.events.ts
conditions:
join   db.main.events.id
join   self.id
where  self.first_seen

=== a source with an identifier, quoted
nodes: {"source.shop.raw.orders": {"relation": "\"db\".\"raw\".\"raw_orders\"", "columns": ["id", "amount"], "resource_type": "source", "name": "orders"}}
sql:
select id as order_id, amount from "db"."raw"."raw_orders"
expect:
order_id  renamed      source.shop.raw.orders.id
amount    passthrough  source.shop.raw.orders.amount

=== models in other packages with the same name in different schemas
nodes: {"model.pkg_a.dim": {"relation": "db.a.dim", "columns": ["id", "x"]}, "model.pkg_b.dim": {"relation": "db.b.dim", "columns": ["id", "y"]}}
sql:
select a.id, a.x, b.y from db.a.dim a join db.b.dim b on a.id = b.id
expect:
id  passthrough  model.pkg_a.dim.id
x   passthrough  model.pkg_a.dim.x
y   passthrough  model.pkg_b.dim.y
conditions:
join  model.pkg_a.dim.id
join  model.pkg_b.dim.id

=== an ambiguous one-part name is not guessed
status: unresolved
reason: not a node
nodes: {"model.pkg_a.dim": {"relation": "db.a.dim", "columns": ["id"]}, "model.pkg_b.dim": {"relation": "db.b.dim", "columns": ["id"]}}
sql:
select id from dim
expect:
id  unknown  unresolved

=== a seed and a snapshot are nodes like models
nodes: {"seed.shop.codes": {"relation": "db.main.codes", "columns": ["code", "label"], "resource_type": "seed"}, "snapshot.shop.snap": {"relation": "db.snapshots.snap", "columns": ["id", "code", "dbt_valid_to"], "resource_type": "snapshot"}}
sql:
select s.id, c.label from db.snapshots.snap s join db.main.codes c using (code) where s.dbt_valid_to is null
expect:
id     passthrough  snapshot.shop.snap.id
label  passthrough  seed.shop.codes.label
conditions:
join   snapshot.shop.snap.code
join   seed.shop.codes.code
where  snapshot.shop.snap.dbt_valid_to

=== compiled SQL that wraps the SELECT in CREATE TABLE ... AS
schema: {"raw.t": ["id", "v"]}
sql:
create or replace table analytics.x as (select id, v * 2 as v2 from raw.t)
expect:
id  passthrough  raw.t.id
v2  derived      raw.t.v
