select
    id as order_id,
    customer_id,
    cast(ordered_at as date) as order_date,
    cast(amount_cents / 100.0 as decimal(18, 2)) as amount,
    status
from "finance_pkg"."raw"."raw_orders"