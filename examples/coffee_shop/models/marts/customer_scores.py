def model(dbt, session):
    """Average value per order and a loyalty flag per customer, computed in Python.

    Python models have no SQL to analyze: their column lineage is declared in
    _marts.yml (meta.catalog.lineage)."""
    dbt.config(materialized="table")
    customers = dbt.ref("customers")
    return customers.project(
        "customer_id, "
        "round(lifetime_value / greatest(order_count, 1), 2) as value_per_order, "
        "order_count >= 3 as is_loyal"
    )
