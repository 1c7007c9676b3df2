select
    order_id,
    customer_id,
    order_date,
    amount,
    status
from "finance_pkg"."main"."stg_orders"
where status <> 'cancelled'