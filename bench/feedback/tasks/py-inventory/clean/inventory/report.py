"""Plain-text reports of a stock."""

from inventory.stock import Stock


def money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def summary(stock: Stock) -> str:
    lines = [f"{len(stock.items)} items, worth {money(stock.value_cents())}"]
    low = stock.names_below(3)
    if low:
        lines.append("low: " + ", ".join(low))
    return "\n".join(lines)
