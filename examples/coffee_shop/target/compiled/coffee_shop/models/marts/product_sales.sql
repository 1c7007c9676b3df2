with __dbt__cte__int_order_items_priced as (
select
    items.order_item_id,
    items.order_id,
    items.product_id,
    products.product_name,
    products.product_type,
    items.quantity,
    products.price as unit_price,
    items.quantity * products.price as line_total
from "coffee_shop"."main"."stg_order_items" as items
inner join "coffee_shop"."main"."stg_products" as products
    on items.product_id = products.product_id
) select
    product_id,
    product_name,
    product_type,
    sum(quantity) as units_sold,
    sum(line_total) as revenue,
    'coffee_shop' as source_system,
    current_timestamp as calculated_at
from __dbt__cte__int_order_items_priced
group by product_id, product_name, product_type
having sum(quantity) > 0
order by revenue desc