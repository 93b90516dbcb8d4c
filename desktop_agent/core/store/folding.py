"""Folding text for search: case- and accent-insensitive for every script, NFC and NFD spellings the same.

:func:`fold` is applied to the indexed text (``message_folded``), to titles and to query terms alike,
so a term matches whatever case, accents or Unicode normal form either was written in:

- case: Unicode case folding (``ß`` → ``ss``, Greek final sigma ``ς`` → ``σ``, Cyrillic, …), plus the
  Turkish dotted and dotless i (``İ``, ``ı`` → ``i``) so ``İstanbul``, ``istanbul`` and ``ISTANBUL`` meet;
- accents: the combining diacritical marks of the decomposed (NFD) text are dropped (``é`` → ``e``, Greek
  tonos ``ά`` → ``α``, ``ё`` → ``е``), plus the letters whose stroke is no combining mark: ``ł`` → ``l``,
  ``ø`` → ``o``, ``đ`` → ``d``, ``ħ`` → ``h``; ``й`` stays a letter of its own (Russian and Ukrainian
  readers do not take it for ``и``);
- other marks (Japanese dakuten, Indic vowel signs, Hangul jamo) are kept: they change the letter.

The text is put in NFC, then each character folds on its own (:func:`fold_char`), so :func:`fold_with_map` can
say which character of the original each folded character came from — search highlights point at the original text.
"""

from __future__ import annotations

import functools
import unicodedata

#: letters with a stroke or bar (not decomposable) and the dotless i, as users of those alphabets type them
_SPECIAL = {
    "ł": "l", "Ł": "l", "ø": "o", "Ø": "o", "đ": "d", "Đ": "d", "ħ": "h", "Ħ": "h", "ı": "i", "İ": "i",
    "ŧ": "t", "Ŧ": "t", "ƀ": "b", "ɨ": "i", "ʉ": "u", "ǥ": "g", "Ǥ": "g",
}
#: kept as they are: letters of their own that happen to decompose into a letter and a diacritic
_KEEP = {"й": "й", "Й": "й"}


def _is_diacritic(c: str) -> bool:
    """A combining mark used as an accent (not one that makes a different letter, e.g. Japanese dakuten)."""
    o = ord(c)
    return (0x0300 <= o <= 0x036F or 0x1AB0 <= o <= 0x1AFF or 0x1DC0 <= o <= 0x1DFF
            or 0x20D0 <= o <= 0x20FF or 0xFE20 <= o <= 0xFE2F)


@functools.lru_cache(maxsize=8192)
def fold_char(c: str) -> str:
    """The folded form of one character (may be empty — a combining accent — or longer — ``ß`` → ``ss``)."""
    if c in _KEEP:
        return _KEEP[c]
    if c in _SPECIAL:
        return _SPECIAL[c]
    d = unicodedata.normalize("NFD", c)
    d = "".join(x for x in d if not _is_diacritic(x)).casefold()
    d = "".join(_SPECIAL.get(x, x) for x in unicodedata.normalize("NFD", d) if not _is_diacritic(x))
    return unicodedata.normalize("NFC", d)


def fold(text: str) -> str:
    """``text`` case- and accent-folded for search (see the module docstring)."""
    if text.isascii():
        return text.lower()
    return "".join(map(fold_char, unicodedata.normalize("NFC", text)))


def fold_with_map(text: str) -> tuple[str, list[int]]:
    """``fold(text)`` and, for each of its characters, the index in ``text`` of the character it came from.
    ``text`` must be in NFC (as :func:`fold` sees it): normalise what is shown first."""
    out: list[str] = []
    where: list[int] = []
    for i, c in enumerate(text):
        f = fold_char(c)
        out.append(f)
        where.extend([i] * len(f))
    return "".join(out), where


def original_span(text: str, where: list[int], start: int, end: int) -> tuple[int, int]:
    """The span of ``text`` that the folded span ``[start, end)`` came from (``where`` from
    :func:`fold_with_map`), with the combining marks that follow its last character (so an NFD accent is
    highlighted with its letter)."""
    first = where[start]
    last = where[end - 1] + 1
    while last < len(text) and fold_char(text[last]) == "":
        last += 1
    return first, last
