"""`--shard i/N`: a deterministic, disjoint split of a submission's problems across N runs."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from validator.findings import UserError

T = TypeVar("T")
SHARD = re.compile(r"^(\d+)/(\d+)$")


def parse_shard(text: str) -> tuple[int, int]:
    """`2/4` -> (2, 4); shards are numbered 1..N so a CI matrix `[1, 2, 3, 4]` maps to them directly."""
    match = SHARD.match(text.strip())
    if not match:
        raise UserError(f"--shard {text!r}: expected I/N with whole numbers, e.g. --shard 1/4")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise UserError(f"--shard {text!r}: I must be between 1 and N (shards are numbered 1..N)")
    return index, count


def select(items: Sequence[T], keys: Sequence[tuple[int, int]], shard: tuple[int, int] | None) -> list[T]:
    """The items of shard i of N: round robin over the items sorted by key (level, problem id).

    Round robin on the sorted order keeps shards balanced across levels and puts every item in exactly
    one shard, whatever N is; the split depends only on the set of problems, not on document order.
    """
    order = sorted(range(len(items)), key=lambda i: keys[i])
    if shard is None:
        return [items[i] for i in order]
    index, count = shard
    return [items[i] for position, i in enumerate(order) if position % count == index - 1]

