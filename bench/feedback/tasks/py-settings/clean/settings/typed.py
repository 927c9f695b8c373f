"""Settings with types and defaults."""

from __future__ import annotations

from dataclasses import dataclass

from settings.parse import SettingsError, parse_lines

TRUE = {"true", "yes", "on", "1"}
FALSE = {"false", "no", "off", "0"}


def to_bool(line: int, value: str) -> bool:
    lowered = value.lower()
    if lowered in TRUE:
        return True
    if lowered in FALSE:
        return False
    raise SettingsError(line, f"expected a yes or no, got {value!r}")


def to_port(line: int, value: str) -> int:
    if not value.isdigit() or not 0 < int(value) < 65536:
        raise SettingsError(line, f"expected a port number, got {value!r}")
    return int(value)


@dataclass
class Settings:
    host: str = "localhost"
    port: int = 8080
    debug: bool = False
    workers: int = 1


def load(text: str) -> Settings:
    raw = parse_lines(text)
    settings = Settings()
    for key, (line, value) in raw.items():
        if key == "host":
            settings.host = value
        elif key == "port":
            settings.port = to_port(line, value)
        elif key == "debug":
            settings.debug = to_bool(line, value)
        elif key == "workers":
            if not value.isdigit() or int(value) < 1:
                raise SettingsError(line, f"expected at least 1 worker, got {value!r}")
            settings.workers = int(value)
        else:
            raise SettingsError(line, f"unknown setting {key!r}")
    return settings
