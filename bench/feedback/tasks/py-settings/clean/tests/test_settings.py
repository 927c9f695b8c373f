import pytest

from settings.parse import SettingsError, parse_lines
from settings.typed import Settings, load


def test_defaults() -> None:
    assert load("") == Settings()


def test_values_and_comments() -> None:
    text = "host = example.org  # the public name\nport = 443\ndebug = yes\n"
    assert load(text) == Settings(host="example.org", port=443, debug=True)


def test_line_numbers_are_kept() -> None:
    assert parse_lines("\n# c\nworkers = 4\n") == {"workers": (3, "4")}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("port = 99999", 1, "port number"),
        ("\ndebug = maybe", 2, "yes or no"),
        ("colour = blue", 1, "unknown setting"),
        ("host = a\nhost = b", 2, "set twice"),
        ("workers = 0", 1, "at least 1"),
        ("just words", 1, "key = value"),
    ],
)
def test_errors_name_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(SettingsError) as err:
        load(text)
    assert err.value.line == line
    assert words in str(err.value)
