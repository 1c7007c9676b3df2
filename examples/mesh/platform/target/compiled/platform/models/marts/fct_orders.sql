select
    order_id,
    customer_id,
    order_date,
    amount,
    status
from "platform"."main"."stg_orders"
where status <> 'cancelled'