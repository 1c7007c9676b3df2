select
    customer_id,
    first_name || ' ' || last_name as full_name,
    email,
    country_code
from "finance_pkg"."main"."stg_customers"