"""The sandbox check every run makes first, before any stage touches a submission's code.

Issue 46: the sandbox was probed by the evaluate stage, after the build stage had already imported (and
built) every kernel module, unconfined where bubblewrap was missing; a verified run then refused, too late.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import ExitCode, UserError
from validator.isolation import bwrap

if TYPE_CHECKING:
    from rich.console import Console


def run_isolation(verified: bool, console: Console | None) -> bwrap.Isolation:
    """Probe the sandbox afresh for this run (the build stage reads the same answer through
    `bwrap.machine_isolation`). A verified run without it stops here, exit 4; a local one warns."""
    from rich.markup import escape

    bwrap.machine_isolation.cache_clear()
    isolation = bwrap.machine_isolation()
    if isolation.confined:
        return isolation
    if verified:
        raise UserError(f"--verified needs the runner sandbox, which is not available here: {isolation.detail}. "
                        "Nothing of the submission was imported, built or run. Install bubblewrap (see the "
                        "maintainers' page) or run without --verified", ExitCode.UNSAFE_HERE)
    if console is not None:
        console.print(f"[yellow]warning:[/] no sandbox here ({escape(isolation.detail)}); kernels are built and "
                      "run with resource limits only, as your user, and the report says `sandbox: none`")
    return isolation
