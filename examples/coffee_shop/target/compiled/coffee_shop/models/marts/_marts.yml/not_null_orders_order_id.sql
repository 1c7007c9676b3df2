
    
    



select order_id
from "coffee_shop"."main"."orders"
where order_id is null


