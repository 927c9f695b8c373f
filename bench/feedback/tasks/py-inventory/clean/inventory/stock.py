"""Items in stock, counted and priced."""

from dataclasses import dataclass, field


@dataclass
class Item:
    name: str
    count: int
    price_cents: int


@dataclass
class Stock:
    items: dict[str, Item] = field(default_factory=dict)

    def add(self, name: str, count: int, price_cents: int) -> None:
        if count < 0:
            raise ValueError("count must not be negative")
        item = self.items.get(name)
        if item is None:
            self.items[name] = Item(name, count, price_cents)
        else:
            item.count += count
            item.price_cents = price_cents

    def take(self, name: str, count: int) -> int:
        item = self.items[name]
        taken = min(item.count, count)
        item.count -= taken
        return taken

    def value_cents(self) -> int:
        return sum(item.count * item.price_cents for item in self.items.values())

    def names_below(self, threshold: int) -> list[str]:
        low = (name for name, item in self.items.items() if item.count < threshold)
        return sorted(low)
