with orders as (

    select * from {{ ref('stg_orders') }}

),

order_items as (

    select
        order_id,
        count(*) as item_count,
        sum(quantity) as total_quantity,
        sum(line_total) as items_amount
    from {{ ref('int_order_items_priced') }}
    group by order_id

),

order_payments as (

    select
        order_id,
        sum(case when payment_method = 'credit_card' then amount else 0 end) as credit_card_amount,
        sum(case when payment_method = 'gift_card' then amount else 0 end) as gift_card_amount,
        sum(case when payment_method = 'bank_transfer' then amount else 0 end) as bank_transfer_amount,
        sum(amount) as total_paid
    from {{ ref('stg_payments') }}
    group by order_id

),

joined as (

    select
        orders.order_id,
        orders.customer_id,
        orders.ordered_at,
        orders.order_date,
        orders.status,
        coalesce(order_items.item_count, 0) as item_count,
        order_items.total_quantity,
        order_items.items_amount,
        order_payments.credit_card_amount,
        order_payments.gift_card_amount,
        order_payments.bank_transfer_amount,
        coalesce(order_payments.total_paid, 0) as amount_paid
    from orders
    left join order_items
        on orders.order_id = order_items.order_id
    left join order_payments
        on orders.order_id = order_payments.order_id

)

select
    order_id,
    customer_id,
    ordered_at,
    order_date,
    status,
    item_count,
    total_quantity,
    items_amount,
    credit_card_amount,
    gift_card_amount,
    bank_transfer_amount,
    amount_paid,
    case
        when status = 'returned' then 'refunded'
        when amount_paid >= items_amount then 'paid'
        else 'unpaid'
    end as payment_status
from joined
