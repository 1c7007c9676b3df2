with source as (

    select * from "coffee_shop"."raw"."raw_customers"

),

renamed as (

    select
        id as customer_id,
        trim(first_name) as first_name,
        trim(last_name) as last_name,
        lower(trim(email)) as email,
        upper(country_code) as country_code,
        cast(signup_date as date) as signup_date,
        updated_at
    from source

)

select * from renamed