select
    sku as product_id,
    trim(name) as product_name,
    lower(type) as product_type,
    cast(price_cents as decimal(10, 2)) / 100 as price,
    coalesce(is_active, true) as is_active
from {{ source('shop', 'products') }}
