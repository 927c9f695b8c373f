from textstats.words import frequencies, mean_sentence_length, sentences, top, words

TEXT = "The cat sat. The cat ran! Did the dog see the cat?"


def test_words_are_lower_case() -> None:
    assert words("The Cat") == ["the", "cat"]


def test_apostrophes_stay_in_words() -> None:
    assert words("it's") == ["it's"]


def test_frequencies() -> None:
    assert frequencies(TEXT)["cat"] == 3


def test_stop_words_are_left_out() -> None:
    assert "the" not in frequencies(TEXT, frozenset({"the"}))


def test_top_breaks_ties_by_word() -> None:
    assert top(TEXT, 2) == [("the", 4), ("cat", 3)]


def test_sentences() -> None:
    assert sentences(TEXT) == ["The cat sat", "The cat ran", "Did the dog see the cat"]


def test_mean_sentence_length() -> None:
    assert mean_sentence_length(TEXT) == 4.0


def test_empty_text() -> None:
    assert mean_sentence_length("") == 0.0
