"""Reading `key = value` lines into strings, with line numbers for errors."""

from __future__ import annotations


class SettingsError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


def parse_lines(text: str) -> dict[str, tuple[int, str]]:
    """Each key's line number and raw value; `#` starts a comment."""
    found: dict[str, tuple[int, str]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise SettingsError(number, f"expected `key = value`, got {line!r}")
        key = key.strip()
        if key in found:
            raise SettingsError(number, f"{key} is set twice")
        found[key] = (number, value.strip())
    return found
