"""Converters: each module exports `transform(node, ctx) -> node` and owns one construct."""
