"""Static analyses: each walks a function's AST and only writes annotations (see `anno.Anno`)."""
