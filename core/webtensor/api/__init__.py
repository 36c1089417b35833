"""The user-facing functions, one module per Array API chapter (plus NumPy-style extras)."""
