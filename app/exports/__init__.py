"""Exports of the synced tables (docs/data.md, "Exports"): every stored row of a window, as
CSV (standard library) or Parquet (pyarrow), streamed with flat memory."""
