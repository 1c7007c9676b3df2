select
    id as order_id,
    customer_id,
    ordered_at::timestamp as ordered_at,
    cast(ordered_at as date) as order_date,
    coalesce(lower(trim(status)), 'unknown') as status
from "coffee_shop"."raw"."raw_orders"