{{
    config(
        materialized='incremental',
        unique_key=['customer_id', 'order_date'],
        incremental_strategy='delete+insert'
    )
}}

-- One row per customer and day. An incremental run rebuilds the latest loaded
-- day and everything after it, so a day that was still open is recomputed whole.
select
    customer_id,
    order_date,
    count(order_id) as order_count,
    sum(amount_paid) as amount_paid,
    max(ordered_at) as last_ordered_at
from {{ ref('orders') }}
{% if is_incremental() %}
where order_date >= (select max(order_date) from {{ this }})
{% endif %}
group by customer_id, order_date
