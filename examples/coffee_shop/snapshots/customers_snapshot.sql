{% snapshot customers_snapshot %}

{{
    config(
        schema='snapshots',
        unique_key='customer_id',
        strategy='timestamp',
        updated_at='updated_at'
    )
}}

select
    customer_id,
    first_name,
    last_name,
    email,
    country_code,
    updated_at
from {{ ref('stg_customers') }}

{% endsnapshot %}
