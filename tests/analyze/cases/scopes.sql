# Scopes: CTEs, subqueries, VALUES, recursion. Types are inherited through scopes.

=== CTE chain: pass-through of a rename is renamed, of a derived is derived
status: partial
schema: {"orders": ["id", "amount", "status"]}
sql:
with a as (select id as order_id, amount * 2 as amount2, status from orders),
     b as (select order_id, amount2, status as order_status from a),
     c as (select order_id as oid, amount2 as a2, order_status from b)
select oid, a2, order_status, order_id_missing_is_not_here_ok from c
expect:
oid           renamed  orders.id
a2            derived  orders.amount
order_status  renamed  orders.status
order_id_missing_is_not_here_ok  unknown  unresolved

=== CTE chain with filters: conditions are traced to the model's inputs
schema: {"orders": ["id", "amount", "status"]}
sql:
with a as (select id, amount, status as s from orders where amount > 0),
     b as (select id, amount from a where s <> 'void')
select id, amount from b
expect:
id      passthrough  orders.id
amount  passthrough  orders.amount
conditions:
where  orders.amount
where  orders.status

=== a CTE whose name shadows a real table
schema: {"orders": ["id", "amount"], "payments": ["id", "order_id", "paid"]}
sql:
with orders as (select order_id as id, paid as amount from payments)
select id, amount from orders
expect:
id      renamed  payments.order_id
amount  renamed  payments.paid

=== a CTE reading the real table it shadows from a qualified name
schema: {"analytics.orders": ["id", "amount"]}
sql:
with orders as (select id, amount * 100 as cents from analytics.orders)
select id, cents from orders
expect:
id     passthrough  analytics.orders.id
cents  derived      analytics.orders.amount

=== subquery in FROM
schema: {"orders": ["id", "amount"]}
sql:
select t.id, t.doubled from (select id, amount * 2 as doubled from orders where amount > 0) as t
expect:
id       passthrough  orders.id
doubled  derived      orders.amount
conditions:
where  orders.amount

=== nested subqueries in FROM
schema: {"orders": ["id", "amount"]}
sql:
select x from (select y as x from (select amount as y from orders) s1) s2
expect:
x  renamed  orders.amount

=== scalar subquery in SELECT
schema: {"orders": ["id", "amount"], "fx": ["rate", "currency"]}
sql:
select id, amount * (select max(rate) from fx where currency = 'EUR') as amount_eur from orders
expect:
id          passthrough  orders.id
amount_eur  derived      orders.amount fx.rate
conditions:
where  fx.currency

=== correlated subquery in SELECT: the correlation is a condition
schema: {"customers": ["id", "name"], "orders": ["id", "customer_id", "amount"]}
sql:
select c.id, (select sum(o.amount) from orders o where o.customer_id = c.id) as lifetime_value from customers c
expect:
id              passthrough  customers.id
lifetime_value  derived      orders.amount
conditions:
where  orders.customer_id
where  customers.id

=== correlated subquery with unqualified inner and outer columns
schema: {"customers": ["id", "name"], "orders": ["order_id", "customer_id", "amount"]}
sql:
select id, (select count(*) from orders where customer_id = id) as n from customers
expect:
id  passthrough  customers.id
n   derived      -
conditions:
where  orders.customer_id
where  customers.id

=== EXISTS subquery in WHERE
schema: {"customers": ["id", "name"], "orders": ["id", "customer_id", "status"]}
sql:
select id, name from customers c
where exists (select 1 from orders o where o.customer_id = c.id and o.status = 'paid')
expect:
id    passthrough  customers.id
name  passthrough  customers.name
conditions:
where  orders.customer_id
where  orders.status
where  customers.id

=== NOT IN subquery in WHERE
schema: {"customers": ["id", "name"], "blocked": ["customer_id", "reason"]}
sql:
select id from customers where id not in (select customer_id from blocked where reason is not null)
expect:
id  passthrough  customers.id
conditions:
where  customers.id
where  blocked.customer_id
where  blocked.reason

=== IN subquery in a JOIN condition
schema: {"a": ["id", "k"], "b": ["id", "k"], "c": ["k", "ok"]}
sql:
select a.id from a join b on a.id = b.id and b.k in (select k from c where ok)
expect:
id  passthrough  a.id
conditions:
join   a.id
join   b.id
join   b.k
join   c.k
where  c.ok

=== subquery in a CASE in SELECT
schema: {"orders": ["id", "amount"], "limits": ["max_amount"]}
sql:
select id, case when amount > (select max(max_amount) from limits) then 'big' else 'small' end as size from orders
expect:
id    passthrough  orders.id
size  derived      orders.amount limits.max_amount

=== recursive CTE: columns of the anchor and the recursive step both feed
# depth: 1, then depth + 1: no upstream column anywhere, so source
schema: {"employees": ["id", "manager_id", "name"]}
sql:
with recursive chain as (
  select id, manager_id, name, 1 as depth from employees where manager_id is null
  union all
  select e.id, e.manager_id, e.name, c.depth + 1 from employees e join chain c on e.manager_id = c.id
)
select id, name, depth from chain
expect:
id     passthrough  employees.id
name   passthrough  employees.name
depth  source       -
conditions:
where  employees.manager_id
join   employees.manager_id
join   employees.id

=== recursive CTE with a column list
# both branches are bare columns: renamed (the union rule)
schema: {"edges": ["parent", "child"]}
sql:
with recursive walk(node, root) as (
  select child, parent from edges
  union all
  select e.child, w.root from edges e join walk w on e.parent = w.node
)
select node, root from walk
expect:
node  renamed  edges.child
root  renamed  edges.parent
conditions:
join  edges.parent
join  edges.child

=== recursive CTE whose step rotates columns: lineage followed to a fixpoint
# a <- x, then b (y) one step later, then c (z) two steps later
schema: {"t": ["x", "y", "z"]}
sql:
with recursive r(a, b, c, n) as (
  select x, y, z, 0 from t
  union all
  select b, c, a, n + 1 from r where n < 5
)
select a, b, c from r
expect:
a  renamed  t.x t.y t.z
b  renamed  t.x t.y t.z
c  renamed  t.x t.y t.z

=== recursive CTE: a filter in the recursive step on a column fed later
schema: {"t": ["id", "parent_id", "ok"]}
sql:
with recursive r as (
  select id, parent_id from t where ok
  union all
  select t.id, r.parent_id from t join r on t.parent_id = r.id
)
select id, parent_id from r
expect:
id         passthrough  t.id
parent_id  passthrough  t.parent_id
conditions:
where  t.ok
join   t.parent_id
join   t.id

=== VALUES list as a CTE
schema: {"orders": ["id", "status"]}
sql:
with labels(status, label) as (values ('paid', 'Paid'), ('void', 'Void'))
select o.id, l.label from orders o left join labels l on o.status = l.status
expect:
id     passthrough  orders.id
label  source       -
conditions:
join  orders.status

=== VALUES list in FROM with alias columns
schema: {}
sql:
select code, n * 2 as n2 from (values ('a', 1), ('b', 2)) as t(code, n)
expect:
code  source  -
n2    source  -

=== ORDER BY and LIMIT in a subquery are conditions
schema: {"orders": ["id", "amount"]}
sql:
select id from (select id from orders order by amount desc limit 10) t
expect:
id  passthrough  orders.id
conditions:
order_by  orders.amount

=== unused CTE contributes nothing
schema: {"orders": ["id"], "other": ["x"]}
sql:
with unused as (select x from other where x > 1)
select id from orders
expect:
id  passthrough  orders.id

=== a WITH inside a subquery, reading an outer CTE
schema: {"orders": ["id", "amount"]}
sql:
with a as (select id, amount * 2 as doubled from orders)
select s.id, s.d from (with b as (select id, doubled as d from a) select * from b) s
expect:
id  passthrough  orders.id
d   derived      orders.amount

=== the same CTE read twice under two aliases
schema: {"orders": ["id", "parent_id", "name"]}
sql:
with o as (select id, parent_id, name from orders)
select c.name as child, p.name as parent from o c join o p on c.parent_id = p.id
expect:
child   renamed  orders.name
parent  renamed  orders.name
conditions:
join  orders.parent_id
join  orders.id

=== IN list and BETWEEN in WHERE, boolean column in SELECT
schema: {"orders": ["id", "status", "amount", "ordered_at"]}
sql:
select id, status in ('a', 'b') as is_ab from orders
where amount between 1 and 10 and ordered_at is not null
expect:
id     passthrough  orders.id
is_ab  derived      orders.status
conditions:
where  orders.amount
where  orders.ordered_at

=== EXISTS as a column counts rows like count(*): derived, its filter a condition
schema: {"t": ["id", "v"]}
sql:
select id, exists(select 1 from t t2 where t2.id > t.id) as has_next from t
expect:
id        passthrough  t.id
has_next  derived      -
conditions:
where  t.id
