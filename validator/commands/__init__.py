"""Registry of `kb-validate` verbs: one module per verb, imported only when that verb runs.

Each module defines `HELP` (one line), `add_arguments(parser)` and
`execute(args, out: Console, err: Console) -> int`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

DEFAULT_VERB = "validate"
VERBS: dict[str, str] = {
    "validate": "validator.commands.validate",
    "import": "validator.commands.import_run",
    "catalogue": "validator.commands.catalogue",
    "merge": "validator.commands.merge",
    "review": "validator.commands.review",
    "hash": "validator.commands.hash",
    "bot": "validator.commands.bot",
}


def load(verb: str) -> ModuleType:
    return importlib.import_module(VERBS[verb])
