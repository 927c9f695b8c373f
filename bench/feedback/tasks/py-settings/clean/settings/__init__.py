"""Typed settings read from `key = value` lines."""
