"""BI definitions read from the BI tools' own files (Lightdash's dbt YAML and charts as code,
LookML): their fields, charts and dashboards, linked to the dbt columns each field reads."""
