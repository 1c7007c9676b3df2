# Stars: expanded from the catalog's columns, CTEs and subqueries.

=== select * over a relation known from the catalog
schema: {"orders": ["id", "amount", "status"]}
sql:
select * from orders
expect:
id      passthrough  orders.id
amount  passthrough  orders.amount
status  passthrough  orders.status

=== t.* plus extra columns
schema: {"orders": ["id", "customer_id"], "customers": ["id", "name"]}
sql:
select o.*, c.name as customer_name from orders o join customers c on o.customer_id = c.id
expect:
id             passthrough  orders.id
customer_id    passthrough  orders.customer_id
customer_name  renamed      customers.name
conditions:
join  orders.customer_id
join  customers.id

=== DuckDB: select * over a join of two relations names the later duplicate id_1
schema: {"a": ["id", "x"], "b": ["id", "y"]}
sql:
select * from a join b on a.id = b.id
expect:
id    passthrough  a.id
x     passthrough  a.x
id_1  renamed      b.id
y     passthrough  b.y
conditions:
join  a.id
join  b.id

=== select * over a CTE chain keeps inherited types
schema: {"orders": ["id", "amount"]}
sql:
with a as (select id as order_id, amount * 2 as amount2, 'x' as tag from orders),
     b as (select * from a)
select * from b
expect:
order_id  renamed  orders.id
amount2   derived  orders.amount
tag       source   -

=== select * over a subquery
schema: {"orders": ["id", "amount"]}
sql:
select * from (select id, amount + 1 as a1 from orders) t
expect:
id  passthrough  orders.id
a1  derived      orders.amount

=== * EXCLUDE (DuckDB)
schema: {"orders": ["id", "amount", "_loaded_at", "_etl_id"]}
sql:
select * exclude (_loaded_at, _etl_id) from orders
expect:
id      passthrough  orders.id
amount  passthrough  orders.amount

=== t.* EXCLUDE over a join
schema: {"orders": ["id", "customer_id", "amount"], "customers": ["customer_id", "name"]}
sql:
select o.* exclude (customer_id), c.* from orders o join customers c on o.customer_id = c.customer_id
expect:
id           passthrough  orders.id
amount       passthrough  orders.amount
customer_id  passthrough  customers.customer_id
name         passthrough  customers.name
conditions:
join  orders.customer_id
join  customers.customer_id

=== * REPLACE (DuckDB) makes the replaced column derived in place
schema: {"orders": ["id", "status", "amount"]}
sql:
select * replace (lower(status) as status, amount / 100 as amount) from orders
expect:
id      passthrough  orders.id
status  derived      orders.status
amount  derived      orders.amount

=== * EXCLUDE and REPLACE together
schema: {"orders": ["id", "status", "amount", "_x"]}
sql:
select * exclude (_x) replace (upper(status) as status) from orders
expect:
id      passthrough  orders.id
status  derived      orders.status
amount  passthrough  orders.amount

=== * EXCEPT (BigQuery)
dialect: bigquery
schema: {"proj.ds.orders": ["id", "amount", "_loaded_at"]}
sql:
select * except (_loaded_at) from `proj.ds.orders`
expect:
id      passthrough  proj.ds.orders.id
amount  passthrough  proj.ds.orders.amount

=== * REPLACE (BigQuery)
dialect: bigquery
schema: {"proj.ds.orders": ["id", "amount"]}
sql:
select * replace (amount * 2 as amount) from proj.ds.orders
expect:
id      passthrough  proj.ds.orders.id
amount  derived      proj.ds.orders.amount

=== * EXCLUDE and RENAME (Snowflake)
dialect: snowflake
schema: {"ORDERS": ["ID", "AMOUNT", "STATUS"]}
sql:
select * exclude (status) rename (amount as total) from orders
expect:
id     passthrough  orders.id
total  renamed      orders.amount

=== select *, expression
schema: {"orders": ["id", "amount"]}
sql:
select *, amount * 2 as doubled from orders
expect:
id       passthrough  orders.id
amount   passthrough  orders.amount
doubled  derived      orders.amount

=== select * over a relation whose columns are unknown: unresolved with a reason
status: unresolved
reason: cannot be expanded
schema: {"orders": null}
sql:
select * from orders
expect:

=== select * over a relation outside the project
status: unresolved
reason: not a node of the dbt project
schema: {}
sql:
select * from somewhere.other_table
expect:

=== t.* over an unknown alias
status: unresolved
reason: unknown relation
schema: {"orders": ["id"]}
sql:
select x.* from orders
expect:

=== explicit columns of a relation with unknown columns are still traced
schema: {"orders": null}
sql:
select id, amount * 2 as a2 from orders
expect:
id  passthrough  orders.id
a2  derived      orders.amount

=== star over declared columns of an ephemeral upstream
ephemeral: {"int_orders": ["id", "total"]}
sql:
select * from __dbt__cte__int_orders
expect:
id     passthrough  int_orders.id
total  passthrough  int_orders.total

=== star in a subquery over an unknown relation, then named columns outside
schema: {"orders": null}
sql:
select id, amount from (select * from orders) t
expect:
id      passthrough  orders.id
amount  passthrough  orders.amount

=== DuckDB COLUMNS('regex') selects the matching columns as they are
schema: {"orders": ["id", "amount_net", "amount_gross", "status"]}
sql:
select id, columns('amount_.*') from orders
expect:
id            passthrough  orders.id
amount_net    passthrough  orders.amount_net
amount_gross  passthrough  orders.amount_gross

=== DuckDB COLUMNS(*) and COLUMNS of a list
schema: {"a": ["x", "y", "z"]}
sql:
with t as (select * from a) select columns(['z', 'x']) from t
expect:
x  passthrough  a.x
z  passthrough  a.z

=== DuckDB * LIKE and * GLOB patterns
schema: {"orders": ["id", "amount_net", "amount_gross", "status"]}
sql:
select * like 'amount%', * glob 'st*' from orders
expect:
amount_net    passthrough  orders.amount_net
amount_gross  passthrough  orders.amount_gross
status        passthrough  orders.status

=== COLUMNS inside an expression is not expanded: unresolved with a reason
status: unresolved
reason: column list not expanded
schema: {"orders": ["a", "b"]}
sql:
select min(columns(*)) from orders
expect:

=== a struct column's fields are not known: s.* and (s).* are unresolved with a reason
status: unresolved
reason: fields of a struct column are not known
schema: {"t": ["id", "s"]}
sql:
select s.* from t
expect:

=== MATCH_RECOGNIZE: select * is not expanded (its columns are partition keys and measures)
dialect: snowflake
status: unresolved
reason: MATCH_RECOGNIZE
schema: {"T": ["ID", "A", "B"]}
sql:
select * from t match_recognize (partition by id order by a measures first(b) as fb one row per match pattern (x+) define x as a > 0)
expect:
