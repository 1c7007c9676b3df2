
    
    



select product_id
from "coffee_shop"."main"."stg_products"
where product_id is null


