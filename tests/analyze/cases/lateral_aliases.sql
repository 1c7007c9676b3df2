# Lateral column aliases: a SELECT item, WHERE, GROUP BY or QUALIFY using an alias the same
# SELECT defined earlier, read as each warehouse reads it. DuckDB, Snowflake, Redshift,
# Databricks/Spark and ClickHouse allow it; a relation's column of that name wins over the
# alias (ClickHouse: the alias wins); where no relation is known to have the name, it is the
# alias, also over relations whose columns are unknown.

=== DuckDB: aliases over a file of unknown columns mean the aliases, not columns of the file
nodes: {"source.p.files.games": {"relation": "read_csv('games.csv')", "columns": null, "resource_type": "source", "source_name": "files"}}
sql:
select
    pts::int as visiting_score,
    pts_1::int as home_score,
    case when visiting_score > home_score then 'visitor' else 'home' end as winner
from read_csv('games.csv')
expect:
visiting_score  derived  source.p.files.games.pts
home_score      derived  source.p.files.games.pts_1
winner          derived  source.p.files.games.pts source.p.files.games.pts_1

=== Snowflake: an alias over a relation of unknown columns
dialect: snowflake
schema: {"raw.events": null}
sql:
select amount * 100 as cents, cents / 3 as third from raw.events
expect:
cents  derived  raw.events.amount
third  derived  raw.events.amount

=== Databricks: an alias over a relation of unknown columns
dialect: databricks
schema: {"raw.events": null}
sql:
select lower(kind) as k, concat(k, '_x') as tag from raw.events
expect:
k    derived  raw.events.kind
tag  derived  raw.events.kind

=== Redshift: an alias over a relation of unknown columns
dialect: redshift
schema: {"raw.events": null}
sql:
select ts::date as day, dateadd(day, 1, day) as next_day from raw.events
expect:
day       derived  raw.events.ts
next_day  derived  raw.events.ts

=== ClickHouse: an alias over a relation of unknown columns
dialect: clickhouse
schema: {"raw.events": null}
sql:
select price * qty as gross, gross * 2 as double_gross from raw.events
expect:
gross         derived  raw.events.price raw.events.qty
double_gross  derived  raw.events.price raw.events.qty

=== ClickHouse: the alias wins over a column of the same name
dialect: clickhouse
schema: {"t": ["a", "b"]}
sql:
select a + 1 as b, b * 2 as c from t
expect:
b  derived  t.a
c  derived  t.a

=== Snowflake: a column of the relation wins over an alias of the same name
dialect: snowflake
schema: {"T": ["A", "B"]}
sql:
select a + 1 as b, b * 2 as c from t
expect:
b  derived  t.a
c  derived  t.b

=== Postgres has no lateral aliases: over a relation of unknown columns the name is the relation's
dialect: postgres
schema: {"raw.events": null}
sql:
select amount * 100 as cents, cents / 3 as third from raw.events
expect:
cents  derived  raw.events.amount
third  derived  raw.events.cents

=== DuckDB: an alias over select * of a CTE of unknown columns, in WHERE too
schema: {"raw.events": null}
sql:
with s as (select * from raw.events)
select amount * 2 as doubled, doubled + 1 as plus_one from s where doubled > 10
expect:
doubled   derived  raw.events.amount
plus_one  derived  raw.events.amount
conditions:
where  raw.events.amount

=== Snowflake: WHERE and GROUP BY on an alias over a relation of unknown columns
dialect: snowflake
schema: {"raw.events": null}
sql:
select date_trunc('month', created_at) as month, count(*) as n
from raw.events
where month > '2020-01-01'
group by month
expect:
month  derived  raw.events.created_at
n      derived  -
conditions:
where     raw.events.created_at
group_by  raw.events.created_at

=== Snowflake: QUALIFY on a window alias over a relation of unknown columns
dialect: snowflake
schema: {"raw.events": null}
sql:
select id, row_number() over (partition by k order by ts desc) as rn from raw.events qualify rn = 1
expect:
id  passthrough  raw.events.id
rn  derived      -
conditions:
window   raw.events.k
window   raw.events.ts
qualify  raw.events.k
qualify  raw.events.ts

=== DuckDB: an alias reusing its own column's name over a relation of unknown columns
schema: {"raw.events": null}
sql:
select trim(name) as name, name || '!' as shout from raw.events
expect:
name   derived  raw.events.name
shout  derived  raw.events.name

=== DuckDB: a qualified name is the relation's column, never an alias
schema: {"raw.events": null}
sql:
select amount * 2 as doubled, e.doubled as stored from raw.events as e
expect:
doubled  derived  raw.events.amount
stored   renamed  raw.events.doubled
