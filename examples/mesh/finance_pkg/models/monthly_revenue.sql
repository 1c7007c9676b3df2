select
    date_trunc('month', order_date) as revenue_month,
    sum(amount) as revenue
from {{ ref('fct_orders') }}
group by 1
