# Set operations: column i draws from column i of every branch.

=== UNION ALL of two pass-through branches
schema: {"a": ["id", "amount"], "b": ["id", "amount"]}
sql:
select id, amount from a
union all
select id, amount from b
expect:
id      passthrough  a.id b.id
amount  passthrough  a.amount b.amount

=== UNION: names from the first branch, renamed when every branch is bare
schema: {"a": ["id", "amount"], "b": ["key", "value"]}
sql:
select id, amount from a
union
select key, value from b
expect:
id      renamed  a.id b.key
amount  renamed  a.amount b.value

=== UNION of a literal and a column is derived; of literals only is source
schema: {"a": ["id", "kind"], "b": ["id"]}
sql:
select id, kind, 'x' as tag from a
union all
select id, 'b', 'y' from b
expect:
id    passthrough  a.id b.id
kind  derived      a.kind
tag   source       -

=== UNION with an expression in one branch is derived
schema: {"a": ["id", "amount"], "b": ["id", "cents"]}
sql:
select id, amount from a
union all
select id, cents / 100 from b
expect:
id      passthrough  a.id b.id
amount  derived      a.amount b.cents

=== three branches and a CTE per branch
schema: {"a": ["id"], "b": ["id"], "c": ["id"]}
sql:
with x as (select id from a), y as (select id from b)
select id from x union all select id from y union all select id from c
expect:
id  passthrough  a.id b.id c.id

=== UNION inside a CTE, then filtered
schema: {"a": ["id", "status"], "b": ["id", "status"]}
sql:
with u as (select id, status from a union all select id, status from b)
select id from u where status = 'ok'
expect:
id  passthrough  a.id b.id
conditions:
where  a.status
where  b.status

=== INTERSECT and EXCEPT
schema: {"a": ["id"], "b": ["id"], "c": ["id"]}
sql:
(select id from a intersect select id from b) except select id from c
expect:
id  passthrough  a.id b.id c.id

=== UNION BY NAME (DuckDB) matches columns by name
schema: {"a": ["id", "x"], "b": ["y", "id"]}
sql:
select id, x from a union all by name select y, id from b
expect:
id  passthrough  a.id b.id
x   passthrough  a.x
y   passthrough  b.y

=== UNION of star branches
schema: {"a": ["id", "v"], "b": ["id", "v"]}
sql:
select * from a union all select * from b
expect:
id  passthrough  a.id b.id
v   passthrough  a.v b.v

=== UNION with WHERE in each branch and ORDER BY on the whole
schema: {"a": ["id", "ok"], "b": ["id", "ok"]}
sql:
select id from a where ok union all select id from b where ok order by id
expect:
id  passthrough  a.id b.id
conditions:
where     a.ok
where     b.ok
order_by  a.id
order_by  b.id

=== UNION where one branch aggregates
schema: {"a": ["id", "amount"], "b": ["id", "amount"]}
sql:
select id, amount from a
union all
select id, sum(amount) from b group by id
expect:
id      passthrough  a.id b.id
amount  derived      a.amount b.amount
conditions:
group_by  b.id

=== a UNION column computed in every branch is derived when one branch reads a table outside the project
schema: {"orders": ["id", "email"]}
status: unresolved
reason: relation legacy.customers is not a node of the dbt project
sql:
select md5(email) as key from orders
union all
select md5(email) as key from legacy.customers
expect:
key  derived  unresolved  orders.email

=== a UNION column bare in a branch that reads a table outside the project stays unknown
schema: {"orders": ["id", "email"]}
status: unresolved
sql:
select email as key from orders
union all
select email as key from legacy.customers
expect:
key  unknown  unresolved  orders.email

=== a select * branch over a relation of unknown columns gives the columns the other branch gives
schema: {"ext": null, "t": ["id", "name"]}
sql:
select id, name from t
union all
select * from ext
expect:
id    passthrough  t.id ext.id
name  passthrough  t.name ext.name

=== a select * first branch over a relation of unknown columns, with a literal in the other
schema: {"ext": null, "t": ["id", "name"]}
sql:
select * from ext
union all
select id, 'none' as name from t
expect:
id    passthrough  ext.id t.id
name  derived      ext.name

=== Snowflake: a select * branch over a relation of unknown columns, through a CTE
dialect: snowflake
schema: {"RAW.EXT": null, "T": ["ID", "NAME"]}
sql:
with u as (select id, name from t union all select * from raw.ext)
select id, upper(name) as name from u
expect:
id    passthrough  t.id raw.ext.id
name  derived      t.name raw.ext.name
