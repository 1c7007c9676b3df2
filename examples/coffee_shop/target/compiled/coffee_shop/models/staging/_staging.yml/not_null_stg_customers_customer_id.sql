
    
    



select customer_id
from "coffee_shop"."main"."stg_customers"
where customer_id is null


