"""Splitting text into words and counting them."""

import re
from collections import Counter

WORD = re.compile(r"[A-Za-z']+")
SENTENCE_END = re.compile(r"[.!?]+")


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def frequencies(text: str, stop: frozenset[str] = frozenset()) -> Counter[str]:
    return Counter(w for w in words(text) if w not in stop)


def top(text: str, n: int, stop: frozenset[str] = frozenset()) -> list[tuple[str, int]]:
    counts = frequencies(text, stop)
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def sentences(text: str) -> list[str]:
    parts = SENTENCE_END.split(text)
    return [p.strip() for p in parts if p.strip()]


def mean_sentence_length(text: str) -> float:
    found = sentences(text)
    if not found:
        return 0.0
    return sum(len(words(s)) for s in found) / len(found)
