
    
    



select order_id
from "coffee_shop"."main"."stg_orders"
where order_id is null


