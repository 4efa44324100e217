"""Combine the results files of a sharded run (`--shard i/N`) into the one file a whole run would write.

Shards are merged only when they measured the same submission under the same protocol, harness and
hardware, and cover disjoint problems; anything else is refused with the file that differs.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from validator.findings import UserError
from validator.results.records import ResultsFile

SAME = (
    ("slug", lambda r: r.slug, "submission"),
    ("submission_sha256", lambda r: r.submission_sha256, "submission document (sha256)"),
    ("hardware", lambda r: r.hardware, "hardware"),
    ("protocol", lambda r: r.protocol, "protocol (version and parameters)"),
    ("harness_version", lambda r: r.environment.harness_version, "harness version"),
    # a run without the sandbox is another trust level: the site marks the whole file by this field
    ("sandbox", lambda r: r.environment.extra.get("sandbox"), "sandbox"),
)
"""What every shard must share: a difference makes the shards different experiments."""
NOTED = ("driver", "cuda", "torch", "triton", "python")
"""Differences worth a warning: the same protocol measured with another software stack."""


def _check_same(shards: Sequence[tuple[str, ResultsFile]]) -> None:
    first_name, first = shards[0]
    for field_name, value, what in SAME:
        for name, shard in shards[1:]:
            if value(shard) != value(first):
                shown = "" if field_name == "protocol" else f": {value(first)!r} vs {value(shard)!r}"
                raise UserError(f"{name}: different {what} from {first_name}{shown}; shards of one run must match")


def _check_disjoint(shards: Sequence[tuple[str, ResultsFile]]) -> None:
    owner: dict[str, str] = {}
    for name, shard in shards:
        for problem in shard.problems:
            if problem.key in owner:
                raise UserError(
                    f"{name}: problem {problem.key} is also in {owner[problem.key]}; shards must not overlap"
                )
            owner[problem.key] = name


def shard_of_name(name: str) -> tuple[int, int] | None:
    """`x.shard-2-of-4.json` -> (2, 4)."""
    match = re.search(r"\.shard-([0-9]+)-of-([0-9]+)\.json$", name)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _incomplete(shards: Sequence[tuple[str, ResultsFile]], unreadable: Sequence[Unreadable]) -> str | None:
    """Why the shards are not a whole run, or None: every shard finished, and the shards (with the unreadable
    ones) are all N of one split."""
    for name, shard in shards:
        if not shard.finished_at:
            return f"{name}: this shard's run did not finish; rerun it (it resumes) before merging"
    specs = [shard.environment.extra.get("shard") for _, shard in shards]
    if any(spec is None for spec in specs):
        return None
    specs += [shard_of_name(bad.file) for bad in unreadable]
    if any(spec is None for spec in specs):
        return f"{unreadable[0].file}: unreadable, and its name does not say which shard it was"
    counts = {spec[1] for spec in specs}
    indices = sorted(spec[0] for spec in specs)
    if len(counts) != 1 or indices != list(range(1, counts.pop() + 1)):
        have = ", ".join(f"{i}/{n}" for i, n in sorted(tuple(s) for s in specs))
        return f"the shards given are {have}; a merge needs each of 1/N..N/N exactly once"
    return None


def joined_provenance(shards: Sequence[ResultsFile]) -> dict[str, str]:
    """Each key's distinct values, in the files' order, comma-joined: where rows were measured (the commits of
    shards, or of a run and the one that resumed it)."""
    merged: dict[str, str] = {}
    for key in sorted({k for shard in shards for k in shard.provenance}):
        values = list(dict.fromkeys(shard.provenance.get(key, "") for shard in shards))
        merged[key] = ",".join(v for v in values if v)
    return merged


def _split_extra(shards: Sequence[ResultsFile]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The machine facts every shard shares, and each shard's own: GPU count, warm-up and clocks differ per
    machine and must not be reported as the whole run's because the first shard had them."""
    extras = [{k: v for k, v in shard.environment.extra.items() if k != "shard"} for shard in shards]
    keys = list(dict.fromkeys(k for extra in extras for k in extra))
    shared = {k: extras[0][k] for k in keys if all(k in e and e[k] == extras[0][k] for e in extras)}
    return shared, [{k: v for k, v in extra.items() if k not in shared} for extra in extras]


def _shard_record(name: str, shard: ResultsFile, own_extra: dict[str, Any]) -> dict[str, Any]:
    env = shard.environment
    return {
        "file": name, "shard": env.extra.get("shard"), "problems": len(shard.problems), "driver": env.driver,
        "torch": env.torch, "sm_clock_mhz": env.sm_clock_mhz, "throttle_reasons": list(env.throttle_reasons),
        "started_at": shard.started_at, "finished_at": shard.finished_at, "provenance": shard.provenance,
        "extra": own_extra,
    }


@dataclass(frozen=True)
class Unreadable:
    """A shard file that could not be used; the merge goes on without it and records it."""

    file: str
    error: str


def merge(
    shards: Sequence[tuple[str, ResultsFile]], allow_partial: bool = False, unreadable: Sequence[Unreadable] = ()
) -> tuple[ResultsFile, list[str]]:
    """The merged file and warnings (software differences between shards). Raises UserError to refuse.

    The problems of an `unreadable` shard are left out of the merged file (the site shows them as missing,
    and the next verified rerun measures them); the file records which shard failed and why. A merge of fewer
    than all shards, or of an unfinished one (`allow_partial`), has no `finished_at`: it is a run in progress.
    """
    if not shards:
        raise UserError("no readable shard file given")
    _check_same(shards)
    _check_disjoint(shards)
    incomplete = _incomplete(shards, unreadable)
    if incomplete and not allow_partial:
        raise UserError(incomplete)
    first = shards[0][1]
    warnings = [
        f"{name}: {field} {getattr(shard.environment, field)!r} differs from {shards[0][0]}'s "
        f"{getattr(first.environment, field)!r}"
        for name, shard in shards[1:] for field in NOTED
        if getattr(shard.environment, field) != getattr(first.environment, field)
    ]
    problems = sorted((p for _, s in shards for p in s.problems), key=lambda p: (p.level, p.problem_id))
    extra, own = _split_extra([shard for _, shard in shards])
    extra["shards"] = [_shard_record(name, shard, mine) for (name, shard), mine in zip(shards, own, strict=True)]
    if unreadable:
        extra["unreadable_shards"] = [{"file": bad.file, "error": bad.error} for bad in unreadable]
    files = [shard for _, shard in shards]
    merged = dataclasses.replace(
        first, environment=dataclasses.replace(first.environment, extra=extra), problems=tuple(problems),
        # a partial merge is a run in progress: no finished_at, so the site marks its absent problems pending
        started_at=min(s.started_at for s in files),
        finished_at="" if incomplete else max(s.finished_at for s in files),
        verified=all(s.verified for s in files), provenance=joined_provenance(files),
    )
    return merged, warnings
