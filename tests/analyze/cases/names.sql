# Names: case folding, quoting, unqualified columns in joins, lateral column aliases.

=== unquoted identifiers are case-insensitive (DuckDB)
schema: {"orders": ["id", "amount"]}
sql:
select ID, Amount as AMT, O.Id as oid from Orders O
expect:
id   passthrough  orders.id
amt  renamed      orders.amount
oid  renamed      orders.id

=== Snowflake: catalog.json in UPPER case, SQL in lower case
dialect: snowflake
schema: {"ANALYTICS.PUBLIC.ORDERS": ["ID", "CUSTOMER_ID", "AMOUNT"]}
sql:
select id, customer_id as cust, amount * 2 as doubled from analytics.public.orders
expect:
id       passthrough  analytics.public.orders.id
cust     renamed      analytics.public.orders.customer_id
doubled  derived      analytics.public.orders.amount

=== Snowflake: quoted upper-case identifiers match unquoted ones
dialect: snowflake
schema: {"ANALYTICS.PUBLIC.ORDERS": ["ID", "AMOUNT"]}
sql:
select "ID", "AMOUNT" as "TOTAL" from "ANALYTICS"."PUBLIC"."ORDERS"
expect:
id     passthrough  analytics.public.orders.id
total  renamed      analytics.public.orders.amount

=== Snowflake: select * over an upper-case catalog
dialect: snowflake
schema: {"ANALYTICS.PUBLIC.ORDERS": ["ID", "AMOUNT"]}
sql:
select * from analytics.public.orders
expect:
id      passthrough  analytics.public.orders.id
amount  passthrough  analytics.public.orders.amount

=== quoted mixed-case and reserved-word columns (DuckDB)
schema: {"users": ["id", "createdAt", "type", "date"]}
sql:
select "createdAt" as created_at, "type", u."date" from users u
expect:
created_at  renamed      users.createdat
type        passthrough  users.type
date        passthrough  users.date

=== quoted relation names with schema and database
schema: {"db.raw.orders": ["id"]}
sql:
select id from "db"."raw"."orders"
expect:
id  passthrough  db.raw.orders.id

=== a relation named by two parts when the index has three
schema: {"db.raw.orders": ["id"]}
sql:
select id from raw.orders
expect:
id  passthrough  db.raw.orders.id

=== BigQuery backticked project.dataset.table
dialect: bigquery
schema: {"my-proj.analytics.orders": ["id", "amount"]}
sql:
select o.id, amount from `my-proj.analytics.orders` as o
expect:
id      passthrough  my-proj.analytics.orders.id
amount  passthrough  my-proj.analytics.orders.amount

=== BigQuery: table-name qualified column without alias
dialect: bigquery
schema: {"my-proj.analytics.orders": ["id"]}
sql:
select orders.id from `my-proj`.analytics.orders
expect:
id  passthrough  my-proj.analytics.orders.id

=== unqualified columns in a join are resolved from the schema
schema: {"orders": ["order_id", "customer_id", "amount"], "customers": ["id", "name"]}
sql:
select order_id, name, amount from orders join customers on customer_id = id
expect:
order_id  passthrough  orders.order_id
name      passthrough  customers.name
amount    passthrough  orders.amount
conditions:
join  orders.customer_id
join  customers.id

=== an unqualified column both relations have is unknown, never guessed
status: partial
schema: {"orders": ["id", "customer_id"], "customers": ["id", "name"]}
sql:
select id, name from orders join customers on orders.customer_id = customers.id
expect:
id    unknown      unresolved
name  passthrough  customers.name
conditions:
join  orders.customer_id
join  customers.id

=== an unqualified column with two relations of unknown columns is unknown
status: unresolved
schema: {"orders": null, "customers": null}
sql:
select name from orders join customers on orders.customer_id = customers.id
expect:
name  unknown  unresolved
conditions:
join  orders.customer_id
join  customers.id

=== an unqualified column absent from the one known relation comes from the other
schema: {"orders": null, "customers": ["id", "name"]}
sql:
select amount, name from orders join customers on orders.customer_id = customers.id
expect:
amount  passthrough  orders.amount
name    passthrough  customers.name
conditions:
join  orders.customer_id
join  customers.id

=== a column not in any relation is unresolved
status: partial
schema: {"orders": ["id"]}
sql:
select id, nope from orders
expect:
id    passthrough  orders.id
nope  unknown      unresolved

=== lateral column alias reuse
dialect: snowflake
schema: {"ORDERS": ["PRICE", "QTY"]}
sql:
select price * qty as gross, gross * 0.2 as tax, gross - tax as net from orders
expect:
gross  derived  orders.price orders.qty
tax    derived  orders.price orders.qty
net    derived  orders.price orders.qty

=== lateral alias reuse of a bare column keeps the type chain
schema: {"orders": ["id"]}
sql:
select id as order_id, order_id as key from orders
expect:
order_id  renamed  orders.id
key       renamed  orders.id

=== a real column wins over a select alias of the same name
schema: {"orders": ["amount", "fee"]}
sql:
select fee as amount, amount * 2 as doubled from orders
expect:
amount   renamed  orders.fee
doubled  derived  orders.amount

=== WHERE on a select alias (DuckDB) is traced through the alias
schema: {"orders": ["amount"]}
sql:
select amount * 2 as doubled from orders where doubled > 10
expect:
doubled  derived  orders.amount
conditions:
where  orders.amount

=== ORDER BY a name means the output column, before an input column of that name
schema: {"orders": ["amount", "fee", "id"]}
sql:
select id, fee as amount from orders order by amount desc, fee
expect:
id      passthrough  orders.id
amount  renamed      orders.fee
conditions:
order_by  orders.fee

=== GROUP BY a name means the input column, before an output alias of that name
schema: {"orders": ["amount", "fee"]}
sql:
select fee as amount, count(*) as n from orders group by amount, fee
expect:
amount  renamed  orders.fee
n       derived  -
conditions:
group_by  orders.amount
group_by  orders.fee

=== a correlated name that the inner relation of unknown columns may also have is not guessed
# id: ext.id or t.id? Neither is recorded as a condition.
schema: {"t": ["id", "a"], "ext": null}
sql:
select a, (select max(x) from ext where ext.k = id) as m from t
expect:
a  passthrough  t.a
m  derived      ext.x
conditions:
where  ext.k

=== DuckDB: "ID" and "id" in one output are one name (DuckDB compares even quoted names without case): the later is id_1
dialect: duckdb
schema: {"a": ["id", "key"]}
sql:
select a.key as "ID", a.id as "id", a.id as other from a
expect:
id     renamed      a.key
id_1   renamed      a.id
other  renamed      a.id

=== DuckDB: the same name twice from two relations: the later is id_1
schema: {"a": ["id"], "b": ["id"]}
sql:
select a.id, b.id from a join b on a.id = b.id
expect:
id    passthrough  a.id
id_1  renamed      b.id
conditions:
join  a.id
join  b.id

=== Postgres: quoted "ID" and "id" are two columns, each with its own lineage
dialect: postgres
schema: {"a": ["id", "key"]}
sql:
select a.key as "ID", a.id as "id", a.id as other from a
expect:
"ID"   renamed      a.key
id     passthrough  a.id
other  renamed      a.id

=== Postgres: a relation with columns "ID" and id (catalog.json spells them ID and id)
dialect: postgres
schema: {"a": ["ID", "id", "Mixed"]}
sql:
select "ID", id, "ID" as x, ID as y, "id" as z, "Mixed" as m from a where "ID" > 0
expect:
"ID"  passthrough  a."ID"
id    passthrough  a.id
x     renamed      a."ID"
y     renamed      a.id
z     renamed      a.id
m     renamed      a."Mixed"
conditions:
where  a."ID"

=== Postgres: select * keeps "ID" and id apart, through a CTE
dialect: postgres
schema: {"a": ["ID", "id"]}
sql:
with t as (select * from a) select t.*, t."ID" + 1 as next_upper, t.id + 1 as next_lower from t
expect:
"ID"        passthrough  a."ID"
id          passthrough  a.id
next_upper  derived      a."ID"
next_lower  derived      a.id

=== Postgres: a downstream model reads "ID" and id of an upstream model
dialect: postgres
schema: {"up": ["ID", "id", "amount"]}
sql:
select u."ID" as upper_id, u.id as lower_id, u."id" as quoted_lower, sum(u.amount) as total
from up as u group by u."ID", u.id
expect:
upper_id      renamed  up."ID"
lower_id      renamed  up.id
quoted_lower  renamed  up.id
total         derived  up.amount
conditions:
group_by  up."ID"
group_by  up.id

=== DuckDB: a quoted "ID" reads the column id
dialect: duckdb
schema: {"a": ["id"]}
sql:
select "ID", "Id" as x from a
expect:
id  passthrough  a.id
x   renamed      a.id

=== Snowflake: "ID" and id are one column, "id" is another
dialect: snowflake
schema: {"A": ["ID", "KEY", "id"]}
sql:
select "ID", id as c2, "id" as c3, "id", key from A
expect:
id    passthrough  A.id
c2    renamed      A.id
c3    renamed      A."id"
"id"  passthrough  A."id"
key   passthrough  A.key

=== Snowflake: "ID" and "id" in one output are two columns
dialect: snowflake
schema: {"A": ["ID", "KEY"]}
sql:
select key as "id", id as "ID" from A
expect:
"id"  renamed      A.key
id    passthrough  A.id
