import pytest

from inventory.report import money, summary
from inventory.stock import Stock


def test_add_and_take() -> None:
    stock = Stock()
    stock.add("bolt", 10, 25)
    assert stock.take("bolt", 4) == 4
    assert stock.items["bolt"].count == 6


def test_take_more_than_there_is() -> None:
    stock = Stock()
    stock.add("nut", 2, 10)
    assert stock.take("nut", 5) == 2


def test_negative_count_is_refused() -> None:
    with pytest.raises(ValueError):
        Stock().add("washer", -1, 5)


def test_value() -> None:
    stock = Stock()
    stock.add("bolt", 3, 25)
    stock.add("nut", 4, 10)
    assert stock.value_cents() == 115


def test_money() -> None:
    assert money(1205) == "12.05"


def test_summary_names_low_items() -> None:
    stock = Stock()
    stock.add("bolt", 10, 25)
    stock.add("nut", 1, 10)
    assert summary(stock) == "2 items, worth 2.60\nlow: nut"
