select
    id as order_item_id,
    * exclude (id, _etl_loaded_at)
from {{ source('shop', 'order_items') }}
