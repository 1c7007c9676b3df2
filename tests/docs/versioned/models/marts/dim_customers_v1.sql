select
    customer_id as id,
    email,
    lifetime_value as value,
    customer_id as legacy_id
from {{ ref('customers') }}
