"""How a judge's evaluation ends early: the exception that carries a status and a reason code, the status a
reason code implies, and exception text cut to a size a result can hold."""

from __future__ import annotations

from validator.results.records import Status


class Stop(Exception):
    """Ends the evaluation early with a status and a reason code."""

    def __init__(self, status: Status, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def describe(exc: BaseException, limit: int = 1500) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text if len(text) <= limit else text[: limit - 16] + " ... (truncated)"


def status_for(code: str) -> Status:
    from validator.evaluate.anticheat import REJECT_CODES

    return Status.REJECTED if code in REJECT_CODES else Status.INCORRECT
