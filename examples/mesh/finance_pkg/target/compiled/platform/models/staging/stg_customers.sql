select
    id as customer_id,
    first_name,
    last_name,
    lower(email) as email,
    country_code
from "finance_pkg"."raw"."raw_customers"