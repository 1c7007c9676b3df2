select
    order_id,
    customer_id,
    ordered_at as event_at,
    'order_placed' as event_type,
    cast(null as decimal(10, 2)) as amount
from "coffee_shop"."main"."stg_orders"

union all

select
    payments.order_id,
    orders.customer_id,
    payments.paid_at,
    'payment_' || payments.payment_method,
    payments.amount
from "coffee_shop"."main"."stg_payments" as payments
inner join "coffee_shop"."main"."stg_orders" as orders
    on payments.order_id = orders.order_id