select
    order_id,
    customer_id,
    ordered_at as event_at,
    'order_placed' as event_type,
    cast(null as decimal(10, 2)) as amount
from {{ ref('stg_orders') }}

union all

select
    payments.order_id,
    orders.customer_id,
    payments.paid_at,
    'payment_' || payments.payment_method,
    payments.amount
from {{ ref('stg_payments') }} as payments
inner join {{ ref('stg_orders') }} as orders
    on payments.order_id = orders.order_id
