select
    product_id,
    product_name,
    product_type,
    sum(quantity) as units_sold,
    sum(line_total) as revenue,
    'coffee_shop' as source_system,
    current_timestamp as calculated_at
from {{ ref('int_order_items_priced') }}
group by product_id, product_name, product_type
having sum(quantity) > 0
order by revenue desc
