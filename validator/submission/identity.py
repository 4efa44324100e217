"""Who a submission says it is: names compared by how they look, so that one cannot pass for another.

A display name spelled with a Cyrillic "о" reads exactly like the torch.compile baseline's and would rank
under it. Names are therefore compared by a skeleton in the manner of Unicode TR39 (NFKC, case folding,
each character replaced by a representative of its class of look-alikes), single words may not mix
scripts (TR39's "highly restrictive" sets: one script, or Latin with the scripts of Japanese, Chinese or
Korean), and invisible characters are refused. The look-alike classes and the Script property come from
`confusable-homoglyphs`, which ships Unicode's confusables.txt and Scripts.txt (the standard library has
neither); its own mixed-script test calls Japanese mixed, so the TR39 sets are applied here.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from confusable_homoglyphs import categories, confusables

from validator.results.baselines import SUBMISSION_SLUG

INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
"""Unicode's Default_Ignorable_Code_Point: zero-width spaces and joiners, bidirectional marks, fillers,
variation selectors, tags. They show as nothing, so two names differing only by them look the same."""
INVISIBLE_CHARACTER = re.compile(f"[{INVISIBLE}]")

RESERVED_NAMES: dict[str, str] = {
    "eager": "",
    "PyTorch eager": "",
    "PyTorch eager (reference)": "",
    "torch.compile": "",
    "torch.compile (reference, baseline timings)": "",
    "torch.compile (inductor, default mode)": SUBMISSION_SLUG,
}
"""Names the site gives its baselines -> the one slug allowed to bear it ("" for none)."""

_ALLOWED_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
_NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED"})
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")  # the package wraps right-to-left glyphs in them


@dataclass(frozen=True)
class Claim:
    """One submission's identity as a file states it."""

    file: str
    slug: str
    name: str


@cache
def _look_alikes() -> dict[str, str]:
    """Character -> the character confusables.txt says it looks like (its prototype).

    The package lists each pair both ways; a character listed with exactly one look-alike is a source and
    that look-alike its prototype (a prototype lists all its sources). Two characters that each list only
    the other form a class of two: both go to one of them, so that the direction does not matter.
    """
    data = confusables.confusables_data
    table: dict[str, str] = {}
    for listed, glyphs in data.items():
        source = listed.translate(_DIRECTION_MARKS)
        if len(glyphs) != 1 or len(source) != 1:
            continue
        prototype = glyphs[0]["c"].translate(_DIRECTION_MARKS)
        if len(data.get(prototype, ())) == 1:  # prefer the one NFKC keeps: it maps "⼤" to "大"
            prototype = min(source, prototype, key=lambda c: (unicodedata.normalize("NFKC", c) != c, c))
        if prototype != source:
            table[source] = prototype
    return table


def skeleton(text: str) -> str:
    """What `text` looks like: equal skeletons mean two texts a reader cannot tell apart."""
    table = _look_alikes()
    text = " ".join(INVISIBLE_CHARACTER.sub("", text).split())
    for _ in range(4):  # a prototype may fold to a character with a prototype of its own ("0" -> "O" -> "o")
        folded = unicodedata.normalize("NFKC", text).casefold()
        mapped = "".join(table.get(ch, ch) for ch in folded).casefold()
        if mapped == text:
            break
        text = mapped
    return text


def mixed_script_word(text: str) -> str | None:
    """The first whitespace-separated word of `text` that mixes scripts beyond TR39's highly restrictive sets."""
    for word in text.split():
        scripts = {categories.alias(ch) for ch in word} - _NEUTRAL_SCRIPTS
        if len(scripts) > 1 and not any(scripts <= allowed for allowed in _ALLOWED_MIXES):
            return word
    return None


def invisible_character(text: str) -> str | None:
    """The first character of `text` that shows as nothing (default-ignorable, or a format character)."""
    for ch in text:
        if INVISIBLE_CHARACTER.match(ch) or unicodedata.category(ch) == "Cf":
            return ch
    return None


def describe(ch: str) -> str:
    return f"U+{ord(ch):04X} ({unicodedata.name(ch, 'unnamed')})"


def text_problem(text: str) -> str | None:
    """Why `text` cannot be a name or an author: an invisible character or a word mixing scripts."""
    if (hidden := invisible_character(text)) is not None:
        return (f"contains the invisible character {describe(hidden)}; names may not hold characters that show "
                "as nothing")
    if (word := mixed_script_word(text)) is not None:
        scripts = ", ".join(sorted({categories.alias(ch) for ch in word} - _NEUTRAL_SCRIPTS)).lower()
        return (f"the word {word!r} mixes scripts ({scripts}); spell each word in one script, so that no letter "
                "can stand in for a look-alike of another script")
    return None


def collisions(claim: Claim, others: Iterable[Claim]) -> list[tuple[str, str]]:
    """(code, message) for each way `claim` looks like a baseline or another submission."""
    found: list[tuple[str, str]] = []
    mine = skeleton(claim.name)
    for reserved, owner in RESERVED_NAMES.items():
        if skeleton(reserved) == mine and claim.slug != owner:
            found.append(("name-impersonates-baseline",
                          f"name {claim.name!r} looks like {reserved!r}, a name the leaderboard gives its baselines; "
                          "choose a name of your own"))
    for other in others:
        if other.file == claim.file:
            continue
        if skeleton(other.name) == mine:
            found.append(("name-collides",
                          f"name {claim.name!r} looks the same as {other.name!r}, the name of {other.file} "
                          f"(this file: {claim.file}); every submission needs a name of its own"))
        if other.slug != claim.slug and skeleton(other.slug) == skeleton(claim.slug):
            found.append(("slug-collides",
                          f"slug {claim.slug!r} looks the same as {other.slug!r}, the slug of {other.file} "
                          f"(this file: {claim.file}); choose a slug that reads differently"))
    return found
