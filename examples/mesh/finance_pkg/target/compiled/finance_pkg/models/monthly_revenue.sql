select
    date_trunc('month', order_date) as revenue_month,
    sum(amount) as revenue
from "finance_pkg"."main"."fct_orders"
group by 1