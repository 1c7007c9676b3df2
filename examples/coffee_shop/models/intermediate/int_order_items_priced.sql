select
    items.order_item_id,
    items.order_id,
    items.product_id,
    products.product_name,
    products.product_type,
    items.quantity,
    products.price as unit_price,
    items.quantity * products.price as line_total
from {{ ref('stg_order_items') }} as items
inner join {{ ref('stg_products') }} as products
    on items.product_id = products.product_id
