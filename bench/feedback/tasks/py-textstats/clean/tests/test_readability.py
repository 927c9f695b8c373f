from textstats.readability import ease, grade, syllables


def test_syllables() -> None:
    found = [syllables(w) for w in ["cat", "water", "readability", "the"]]
    assert found == [1, 2, 5, 1]


def test_silent_e() -> None:
    assert syllables("stone") == 1


def test_short_words_read_easily() -> None:
    assert grade(ease("The cat sat on the mat.")) == "easy"


def test_long_words_read_hard() -> None:
    text = "Incomprehensibility characterises institutionalised bureaucracies."
    assert grade(ease(text)) == "hard"


def test_empty_text_scores_zero() -> None:
    assert ease("") == 0.0
