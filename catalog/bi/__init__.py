"""BI definitions read from the BI tools' files (Lightdash's dbt YAML meta, charts and dashboards
as code; LookML; Metabase's API JSON): their fields, charts and dashboards, linked to the dbt columns each field reads."""
