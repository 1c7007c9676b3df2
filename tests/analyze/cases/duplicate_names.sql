# A SELECT that gives one name twice, as each warehouse names the columns of what it creates:
# DuckDB renames the later ones name_1, name_2, ... (the first suffix no column has taken, in
# subqueries and CTEs too); Postgres, Snowflake, BigQuery, Databricks, ... refuse to create the
# table or view: the model is failed with that reason, unless catalog.json lists its columns
# (the warehouse made it), where the name keeps one column whose lineage is not guessed.
# ClickHouse names an ambiguous column of a joined relation `relation.column` and refuses two
# identical names. Each ClickHouse case's names are those ClickHouse 26.9 (chDB 4.4) gave the
# table `create table t engine=Memory as <sql>` made over tables of the schema's columns.

=== DuckDB: an expression named like a column of s.*: the star's column is elo_1
schema: {"s": ["id", "elo", "name"], "r": ["id", "elo"]}
sql:
select round(r.elo, 0) as elo, s.* from s join r on s.id = r.id
expect:
elo    derived      r.elo
id     passthrough  s.id
elo_1  renamed      s.elo
name   passthrough  s.name
conditions:
join  s.id
join  r.id

=== DuckDB: a suffix another column has taken is skipped
schema: {"t": ["pts", "pts_1", "b"]}
sql:
select 7 as pts, t.* from t
expect:
pts      source   -
pts_1    renamed  t.pts
pts_1_1  renamed  t.pts_1
b        passthrough  t.b

=== DuckDB: a name three times, and a column named like the second
schema: {"t": ["a", "b", "c"]}
sql:
select a as x, b as x, c as x, 1 as x_1 from t
expect:
x      renamed  t.a
x_1    renamed  t.b
x_2    renamed  t.c
x_1_1  source   -

=== DuckDB: a CTE giving a name twice: its star has both, the name means the first
schema: {"t": ["pts", "b"]}
sql:
with x as (select pts as a, b as a from t)
select *, a as first_a from x
expect:
a        renamed  t.pts
a_1      renamed  t.b
first_a  renamed  t.pts

=== DuckDB: select * over USING keeps the key once and renames the other duplicates
schema: {"t": ["id", "v"], "u": ["id", "v"]}
sql:
select * from t join u using (id)
expect:
id   passthrough  t.id u.id
v    passthrough  t.v
v_1  renamed      u.v
conditions:
join  t.id
join  u.id

=== DuckDB: catalog.json names the renamed column
schema: {"a": ["id"], "b": ["id"]}
output: ["id", "id_1"]
sql:
select a.id, b.id from a join b on a.id = b.id
expect:
id    passthrough  a.id
id_1  renamed      b.id
conditions:
join  a.id
join  b.id

=== Postgres refuses two columns of one name: the model is failed with that reason
dialect: postgres
schema: {"a": ["id"], "b": ["id"]}
status: failed
reason: postgres refuses a table or view with two columns named 'id' (a.id, b.id)
sql:
select a.id, b.id from a join b on a.id = b.id
expect:

=== BigQuery refuses the same column selected twice
dialect: bigquery
schema: {"t": ["id"]}
status: failed
reason: two columns named 'id' (id, id)
sql:
select id, id from t
expect:

=== Snowflake refuses two stars that share a column name
dialect: snowflake
schema: {"A": ["ID", "X"], "B": ["ID", "Y"]}
status: failed
reason: snowflake refuses a table or view with two columns named 'id' (a.id, b.id)
sql:
select a.*, b.* from a join b on a.id = b.id
expect:

=== Snowflake: where catalog.json lists the model, the name twice is one column whose lineage is not guessed
dialect: snowflake
schema: {"A": ["ID"], "B": ["ID"]}
output: ["ID"]
status: unresolved
reason: two output columns are named 'id'
sql:
select a.id, b.id from a join b on a.id = b.id
expect:
id  unknown  unresolved
conditions:
join  a.id
join  b.id

=== Snowflake: a column selected twice that catalog.json lists as NAME_2 is that column
dialect: snowflake
schema: {"DB.BRONZE.EVENTS": ["TX", "EVENT_ID", "TS"]}
output: ["TX_ID", "EVENT_ID", "TS", "EVENT_ID_2"]
sql:
select tx as tx_id, event_id, ts, event_id from db.bronze.events
qualify row_number() over (partition by event_id order by ts desc) = 1
expect:
tx_id       renamed      db.bronze.events.tx
event_id    passthrough  db.bronze.events.event_id
ts          passthrough  db.bronze.events.ts
event_id_2  renamed      db.bronze.events.event_id
conditions:
qualify  db.bronze.events.event_id
qualify  db.bronze.events.ts

=== Snowflake: two stars sharing a name that catalog.json lists as ID_2
dialect: snowflake
schema: {"A": ["ID", "X"], "B": ["ID", "Y"]}
output: ["ID", "X", "ID_2", "Y"]
sql:
select a.*, b.* from a join b on a.id = b.id
expect:
id    passthrough  a.id
x     passthrough  a.x
id_2  renamed      b.id
y     passthrough  b.y
conditions:
join  a.id
join  b.id

=== Postgres: a name twice inside a CTE is not refused; the outer query reads one of them
dialect: postgres
schema: {"t": ["a", "b"]}
sql:
with x as (select a as k, b as k, a from t)
select a from x
expect:
a  passthrough  t.a

=== ClickHouse: a star's column named like an item's alias is relation.column
dialect: clickhouse
schema: {"s": ["id", "elo", "name"], "r": ["id", "elo", "k"]}
sql:
select round(r.elo, 0) as elo, s.* from s join r on s.id = r.id
expect:
elo    derived      r.elo
id     passthrough  s.id
s.elo  renamed      s.elo
name   passthrough  s.name
conditions:
join  s.id
join  r.id

=== ClickHouse: over two relations, the right one's columns that the left one has are relation.column
dialect: clickhouse
schema: {"s": ["id", "elo", "name"], "r": ["id", "elo", "k"]}
sql:
select * from s join r on s.id = r.id
expect:
id     passthrough  s.id
elo    passthrough  s.elo
name   passthrough  s.name
r.id   renamed      r.id
r.elo  renamed      r.elo
k      passthrough  r.k
conditions:
join  s.id
join  r.id

=== ClickHouse: a column read by reference is named as a star would name it, with the alias as written
dialect: clickhouse
schema: {"s": ["id", "elo"], "r": ["id", "elo"]}
sql:
select x.elo, y.elo from s as x join r as y on x.id = y.id
expect:
elo    passthrough  s.elo
y.elo  renamed      r.elo
conditions:
join  s.id
join  r.id

=== ClickHouse: over three relations, every column whose name two of them have is relation.column
dialect: clickhouse
schema: {"a": ["x", "p"], "b": ["y", "q"], "c": ["x", "y", "w"]}
sql:
select * from a join b on a.x = b.y join c on c.x = a.x
expect:
a.x  renamed      a.x
p    passthrough  a.p
b.y  renamed      b.y
q    passthrough  b.q
c.x  renamed      c.x
c.y  renamed      c.y
w    passthrough  c.w
conditions:
join  a.x
join  b.y
join  c.x

=== ClickHouse: USING keeps the key once, under its own name
dialect: clickhouse
schema: {"s": ["id", "elo", "name"], "r": ["id", "elo", "k"]}
sql:
select * from s join r using (id)
expect:
id     passthrough  s.id r.id
elo    passthrough  s.elo
name   passthrough  s.name
r.elo  renamed      r.elo
k      passthrough  r.k
conditions:
join  s.id
join  r.id

=== ClickHouse: a CTE's columns keep the names ClickHouse gave them
dialect: clickhouse
schema: {"s": ["id", "elo"], "r": ["id", "elo"]}
sql:
with j as (select s.elo, r.elo from s join r on s.id = r.id)
select * from j
expect:
elo    passthrough  s.elo
r.elo  renamed      r.elo
conditions:
join  s.id
join  r.id

=== ClickHouse refuses two items of one alias: the model is failed with that reason
dialect: clickhouse
schema: {"s": ["id", "elo"], "r": ["id", "elo"]}
status: failed
reason: clickhouse refuses a table or view with two columns named 'e' (s.elo + 1 AS e, r.elo + 1 AS e)
sql:
select s.elo + 1 as e, r.elo + 1 as e from s join r on s.id = r.id
