"""Word and sentence statistics of plain text."""
