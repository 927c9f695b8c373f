"""A table of routes and the first one a path matches."""

from __future__ import annotations

from dataclasses import dataclass, field

from router.pattern import Segment, parse


@dataclass
class Route:
    pattern: str
    handler: str
    segments: list[Segment] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.segments = parse(self.pattern)


@dataclass
class Match:
    handler: str
    params: dict[str, object]


class Router:
    def __init__(self) -> None:
        self.routes: list[Route] = []

    def add(self, pattern: str, handler: str) -> None:
        self.routes.append(Route(pattern, handler))

    def resolve(self, path: str) -> Match | None:
        parts = [p for p in path.split("?")[0].split("/") if p]
        for route in self.routes:
            params = self._match(route, parts)
            if params is not None:
                return Match(route.handler, params)
        return None

    @staticmethod
    def _match(route: Route, parts: list[str]) -> dict[str, object] | None:
        if len(parts) != len(route.segments):
            return None
        params: dict[str, object] = {}
        for segment, part in zip(route.segments, parts, strict=True):
            ok, value = segment.match(part)
            if not ok:
                return None
            if segment.name is not None:
                params[segment.name] = value
        return params

    def handlers(self) -> list[str]:
        return sorted({route.handler for route in self.routes})
