select
    customer_id as id,
    email,
    full_name,
    rank_in_country as value,
    country_name as country
from {{ ref('customers') }}
