"""Route patterns: literal segments and typed parameters."""

from __future__ import annotations

from dataclasses import dataclass

CONVERTERS = {"int": int, "str": str}


class PatternError(ValueError):
    pass


@dataclass(frozen=True)
class Segment:
    literal: str | None
    name: str | None = None
    kind: str = "str"

    def match(self, part: str) -> tuple[bool, object]:
        if self.literal is not None:
            return part == self.literal, None
        if self.kind == "int":
            if not part.isdigit():
                return False, None
            return True, int(part)
        return bool(part), part


def parse_segment(text: str) -> Segment:
    if not (text.startswith("{") and text.endswith("}")):
        return Segment(literal=text)
    name, _, kind = text[1:-1].partition(":")
    kind = kind or "str"
    if kind not in CONVERTERS:
        raise PatternError(f"unknown converter {kind!r} in {text!r}")
    if not name.isidentifier():
        raise PatternError(f"bad parameter name {name!r}")
    return Segment(literal=None, name=name, kind=kind)


def parse(pattern: str) -> list[Segment]:
    if not pattern.startswith("/"):
        raise PatternError(f"pattern {pattern!r} does not start with /")
    parts = [p for p in pattern.split("/") if p]
    return [parse_segment(p) for p in parts]
