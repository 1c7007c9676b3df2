# Relations whose columns are unknown (no catalog.json entry, no YAML columns): resolve what
# the SQL proves, never guess.

=== a qualified name of an unknown relation resolves in a join with a known one
schema: {"orders": ["id", "customer_id"], "ext": null}
sql:
select o.id, e.segment, e.score * 2 as s2 from orders o join ext e on o.customer_id = e.customer_id
expect:
id       passthrough  orders.id
segment  passthrough  ext.segment
s2       derived      ext.score
conditions:
join  orders.customer_id
join  ext.customer_id

=== the only relation in scope owns every unqualified name
schema: {"ext": null}
sql:
select a, b as bee, upper(c) as c from ext where d > 0
expect:
a    passthrough  ext.a
bee  renamed      ext.b
c    derived      ext.c
conditions:
where  ext.d

=== a name no known relation has belongs to the unknown one, through a CTE
schema: {"orders": ["id", "customer_id"], "ext": null}
sql:
with j as (select id, segment from orders join ext on orders.customer_id = ext.cid)
select id, segment from j
expect:
id       passthrough  orders.id
segment  passthrough  ext.segment
conditions:
join  orders.customer_id
join  ext.cid

=== select * over an unknown relation alone in FROM gives the model's own columns
schema: {"ext": null}
output: ["id", "name"]
sql:
select * from ext
expect:
id    passthrough  ext.id
name  passthrough  ext.name

=== select * over an unknown relation through a CTE chain gives the model's own columns
schema: {"ext": null}
output: ["id", "name"]
sql:
with s as (select * from ext where id > 0), f as (select * from s)
select * from f
expect:
id    passthrough  ext.id
name  passthrough  ext.name
conditions:
where  ext.id

=== select * over an unknown relation and a known one: the model's other columns are the unknown one's
schema: {"ext": null, "orders": ["id", "amount"]}
output: ["id", "name", "amount"]
sql:
select * from ext join orders using (id)
expect:
id      passthrough  ext.id orders.id
name    passthrough  ext.name
amount  passthrough  orders.amount
conditions:
join  ext.id
join  orders.id

=== select * over an unknown relation whose model columns disagree with the SQL is not expanded
status: partial
reason: cannot be expanded
schema: {"ext": null}
output: ["id", "name"]
sql:
select *, 1 as flag from ext
expect:
flag  source  -

=== select * over an unknown relation, with the model's columns declared in YAML only
schema: {"raw.ext": null}
declared: ["id", "name"]
sql:
select * from raw.ext
expect:
id    passthrough  raw.ext.id
name  passthrough  raw.ext.name

=== dbt-duckdb external source: a quoted file path
nodes: {"source.p.files.x": {"relation": "'data/x.csv'", "columns": ["id", "v"], "resource_type": "source", "source_name": "files"}}
sql:
select id, v * 2 as v2 from 'data/x.csv'
expect:
id  passthrough  source.p.files.x.id
v2  derived      source.p.files.x.v

=== dbt-duckdb external source: a reader call, matched by the file it reads
nodes: {"source.p.files.y": {"relation": "read_parquet('s3://bucket/y.parquet')", "columns": ["id", "v"], "resource_type": "source", "source_name": "files"}}
sql:
select f.id, f.v from read_parquet('s3://bucket/y.parquet', hive_partitioning = true) as f
expect:
id  passthrough  source.p.files.y.id
v   passthrough  source.p.files.y.v

=== dbt-duckdb external source: external_location in its meta; columns unknown
nodes: {"source.p.files.z": {"relation": "main.z", "columns": null, "resource_type": "source", "source_name": "files", "meta": {"external_location": "read_csv('data/{name}.csv')"}}}
output: ["a", "b"]
sql:
select * from read_csv('data/z.csv')
expect:
a  passthrough  source.p.files.z.a
b  passthrough  source.p.files.z.b

=== a column alias list names a relation's columns
schema: {"t": ["p", "q"]}
sql:
select x.a, b from t as x(a, b)
expect:
a  renamed  t.p
b  renamed  t.q

=== a column alias list over a subquery
schema: {"t": ["p", "q"]}
sql:
select a, b from (select p, q + 1 from t) as x(a, b)
expect:
a  renamed  t.p
b  derived  t.q

=== a PIVOT alias list names the pivoted relation's columns
schema: {"daily": ["id", "day", "metric", "value"]}
sql:
select p.* from (select id, metric, value from daily) pivot (sum(value) for metric in ('a', 'b')) as p (key, total_a, total_b)
expect:
key      renamed  daily.id
total_a  derived  daily.value daily.metric
total_b  derived  daily.value daily.metric
conditions:
group_by  daily.id

=== a column alias list names the columns of VALUES
schema: {}
sql:
select k, v from (values (1, 'a'), (2, 'b')) as m(k, v)
expect:
k  source  -
v  source  -

=== an aggregate a CTE computes stays derived when the final SELECT wraps it
schema: {"games": ["team", "won"]}
sql:
with w as (select team, count(*) as wins from games where won group by team)
select w.team, coalesce(w.wins, 0) as wins from w
expect:
team  passthrough  games.team
wins  derived      -
conditions:
where     games.won
group_by  games.team

=== ClickHouse: a name two joined relations have, both from the same upstream column, has that lineage
dialect: clickhouse
schema: {"raw.events": ["id", "ts"], "raw.users": ["id", "name"]}
sql:
with a as (select id, ts from raw.events), b as (select id from raw.events)
select id, a.ts from a join b on a.id = b.id
expect:
id  passthrough  raw.events.id
ts  passthrough  raw.events.ts
conditions:
join  raw.events.id

=== a name two joined relations have from different upstream columns stays ambiguous
dialect: clickhouse
status: partial
schema: {"raw.events": ["id", "ts"], "raw.users": ["id", "name"]}
sql:
with a as (select id, ts from raw.events), b as (select id from raw.users)
select id, a.ts from a join b on a.id = b.id
expect:
id  unknown  unresolved
ts  passthrough  raw.events.ts
conditions:
join  raw.events.id
join  raw.users.id
