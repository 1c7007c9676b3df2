with customers as (

    select * from "coffee_shop"."main"."stg_customers"

),

countries as (

    select * from "coffee_shop"."main"."country_codes"

),

valid_orders as (

    select * from "coffee_shop"."main"."orders"
    where status <> 'cancelled'

),

customer_orders as (

    select
        customer_id,
        min(ordered_at) as first_ordered_at,
        max(ordered_at) as last_ordered_at,
        count(*) as order_count,
        sum(amount_paid) as lifetime_value
    from valid_orders
    group by customer_id

),

first_orders as (

    select distinct
        customer_id,
        first_value(order_id) over (
            partition by customer_id
            order by ordered_at
        ) as first_order_id
    from valid_orders

)

select
    customers.customer_id,
    customers.first_name || ' ' || customers.last_name as full_name,
    customers.email,
    customers.country_code,
    countries.country_name,
    customers.signup_date,
    first_orders.first_order_id,
    customer_orders.first_ordered_at,
    customer_orders.last_ordered_at,
    coalesce(customer_orders.order_count, 0) as order_count,
    coalesce(customer_orders.lifetime_value, 0) as lifetime_value,
    row_number() over (
        partition by customers.country_code
        order by customer_orders.lifetime_value desc nulls last, customers.customer_id
    ) as rank_in_country
from customers
left join countries
    on customers.country_code = countries.country_code
left join customer_orders
    on customers.customer_id = customer_orders.customer_id
left join first_orders
    on customers.customer_id = first_orders.customer_id