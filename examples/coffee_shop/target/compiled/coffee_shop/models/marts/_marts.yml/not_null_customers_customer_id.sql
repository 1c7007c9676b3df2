
    
    



select customer_id
from "coffee_shop"."main"."customers"
where customer_id is null


