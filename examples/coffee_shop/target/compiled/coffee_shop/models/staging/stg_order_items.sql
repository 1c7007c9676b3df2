select
    id as order_item_id,
    * exclude (id, _etl_loaded_at)
from "coffee_shop"."raw"."raw_order_items"