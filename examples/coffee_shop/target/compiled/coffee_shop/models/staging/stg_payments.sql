select
    id as payment_id,
    order_id,
    lower(payment_method) as payment_method,
    amount_cents::decimal(10, 2) / 100 as amount,
    created_at as paid_at
from "coffee_shop"."raw"."raw_payments"
where status = 'success'