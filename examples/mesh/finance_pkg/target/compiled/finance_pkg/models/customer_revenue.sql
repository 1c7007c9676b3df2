with orders as (
    select customer_id, amount
    from "finance_pkg"."main"."fct_orders"
)

select
    c.customer_id,
    c.email,
    c.full_name as customer_name,
    sum(o.amount) as revenue
from "finance_pkg"."main"."dim_customers" as c
join orders as o on o.customer_id = c.customer_id
group by c.customer_id, c.email, c.full_name