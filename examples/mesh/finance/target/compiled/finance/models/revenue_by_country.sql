select
    c.country_code,
    sum(r.revenue) as revenue
from "finance"."main"."customer_revenue" as r
join "platform"."main"."dim_customers" as c on c.customer_id = r.customer_id
group by c.country_code