"""A stock list: items, their counts and their prices."""
