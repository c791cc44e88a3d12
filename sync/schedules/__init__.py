"""Schedules: backfills, reconciles and exports the workers run on a cron (docs/sync.md, "Schedules")."""
