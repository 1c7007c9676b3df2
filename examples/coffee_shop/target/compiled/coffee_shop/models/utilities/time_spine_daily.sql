-- One row per day: the time spine the Semantic Layer joins time-based metrics to.
select cast(day as date) as date_day
from generate_series(date '2024-01-01', date '2026-12-31', interval 1 day) as days (day)