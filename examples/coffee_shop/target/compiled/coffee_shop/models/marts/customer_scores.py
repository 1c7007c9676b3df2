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


# This part is user provided model code
# you will need to copy the next section to run the code
# COMMAND ----------
# this part is dbt logic for get ref work, do not modify

def ref(*args, **kwargs):
    refs = {"customers": "\"coffee_shop\".\"main\".\"customers\""}
    key = '.'.join(args)
    version = kwargs.get("v") or kwargs.get("version")
    if version:
        key += f".v{version}"
    dbt_load_df_function = kwargs.get("dbt_load_df_function")
    return dbt_load_df_function(refs[key])


def source(*args, dbt_load_df_function):
    sources = {}
    key = '.'.join(args)
    return dbt_load_df_function(sources[key])


config_dict = {}
meta_dict = {}


class config:
    def __init__(self, *args, **kwargs):
        pass

    @staticmethod
    def get(key, default=None):
        return config_dict.get(key, default)

    @staticmethod
    def meta_get(key, default=None):
        return meta_dict.get(key, default)

class this:
    """dbt.this() or dbt.this.identifier"""
    database = "coffee_shop"
    schema = "main"
    identifier = "customer_scores"
    
    def __repr__(self):
        return '"coffee_shop"."main"."customer_scores"'


class dbtObj:
    def __init__(self, load_df_function) -> None:
        self.source = lambda *args: source(*args, dbt_load_df_function=load_df_function)
        self.ref = lambda *args, **kwargs: ref(*args, **kwargs, dbt_load_df_function=load_df_function)
        self.config = config
        self.this = this()
        self.is_incremental = False

# COMMAND ----------


