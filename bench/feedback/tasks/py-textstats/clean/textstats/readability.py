"""A rough readability score: short words in short sentences read easily."""

from textstats.words import mean_sentence_length, words

VOWELS = "aeiouy"


def syllables(word: str) -> int:
    count = 0
    previous = False
    for ch in word.lower():
        vowel = ch in VOWELS
        if vowel and not previous:
            count += 1
        previous = vowel
    if word.endswith("e") and count > 1:
        count -= 1
    return max(count, 1)


def ease(text: str) -> float:
    found = words(text)
    if not found:
        return 0.0
    per_word = sum(syllables(w) for w in found) / len(found)
    return round(206.835 - 1.015 * mean_sentence_length(text) - 84.6 * per_word, 1)


def grade(score: float) -> str:
    if score >= 80:
        return "easy"
    if score >= 50:
        return "plain"
    return "hard"
