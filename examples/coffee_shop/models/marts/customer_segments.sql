select
    *,
    case
        when lifetime_value >= 20 then 'regular'
        when order_count > 0 then 'occasional'
        else 'prospect'
    end as segment
from {{ ref('customers') }}
