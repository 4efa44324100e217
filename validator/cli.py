"""`kb-validate` / `python -m validator`: parse the verb, run it, map every failure to an exit code."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import IO, NoReturn

from rich.console import Console

from validator import __version__, commands
from validator.findings import EXIT_STATUSES, ExitCode, UserError
from validator.untrusted import printable, printable_block


class _HelpShown(Exception):
    """--help or --version was printed; the command ends with status 0."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting and prints where it is told, so tests run it in-process."""

    out: IO[str] = sys.stdout

    def error(self, message: str) -> NoReturn:
        raise UserError(f"{message} (see {self.prog} --help)")

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        if message:
            self.out.write(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise _HelpShown


def _top_help() -> str:
    verbs = "\n".join(f"  {name:<10} {commands.load(name).HELP}" for name in commands.VERBS)
    statuses = "\n".join(f"  {int(code):<4} {meaning.replace('`', '')}" for code, meaning in EXIT_STATUSES.items())
    return (
        "usage: kb-validate [VERB] ARGS...\n\n"
        "Validate KernelBench leaderboard submissions; the verb defaults to 'validate'.\n\n"
        f"verbs:\n{verbs}\n\n"
        "Run 'kb-validate VERB --help' for a verb's options.\n\n"
        f"Exit status:\n{statuses}\n"
    )


def _not_a_verb(word: str) -> None:
    """A first word that is no verb, no option and no file is a mistyped verb (`improt`), not a submission path:
    say so, rather than report an unreadable file of that name."""
    if word.startswith("-") or "/" in word or "." in word or Path(word).exists():
        return
    close = difflib.get_close_matches(word, commands.VERBS, n=1, cutoff=0.6)
    hint = f"did you mean 'kb-validate {close[0]}'? " if close else ""
    raise UserError(f"{word!r} is neither a verb nor a submission file; {hint}verbs: {', '.join(commands.VERBS)} "
                    "(see kb-validate --help); a submission is a path such as submissions/<slug>.json")


def _build_parser(verb: str, out_file: IO[str]) -> argparse.ArgumentParser:
    module = commands.load(verb)
    prog = "kb-validate" if verb == commands.DEFAULT_VERB else f"kb-validate {verb}"
    # a verb's EPILOG (file formats, examples) keeps its own line breaks
    parser = _Parser(prog=prog, description=module.HELP, epilog=getattr(module, "EPILOG", None),
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.out = out_file
    parser.add_argument("--version", action="version", version=f"kb-validate {__version__}")
    module.add_arguments(parser)
    return parser


def _dispatch(argv: list[str], out: Console, err: Console) -> int:
    if argv and argv[0] in ("-h", "--help") and len(argv) == 1:
        out.print(_top_help(), markup=False, highlight=False)
        return ExitCode.OK
    verb = commands.DEFAULT_VERB
    if argv and argv[0] in commands.VERBS:
        verb, argv = argv[0], argv[1:]
    elif argv:
        _not_a_verb(argv[0])
    parser = _build_parser(verb, out.file)
    try:
        args = parser.parse_args(argv)
    except _HelpShown:
        return ExitCode.OK
    try:
        Path.cwd()  # relative paths, the sandbox's mounts and the build all need it
    except FileNotFoundError:
        raise UserError("the working directory no longer exists (removed while this shell was in it); "
                        "cd into the repository and run again") from None
    return int(commands.load(verb).execute(args, out, err))


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (a CI job cancelled, `timeout`) is handled as Ctrl-C: the stack unwinds, so judges, runners and
    their directories in /tmp and /dev/shm are ended and removed, where the signal's default left them behind.
    The build stage puts its own handler over this one while it runs (build/interrupts.py)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _tolerant(stream: IO[str]) -> IO[str]:
    """The process's own stream, set to write what it cannot encode as `\\udcff` rather than raise: the last guard
    behind `untrusted`, so no text a submission controls can end a run with an internal error while printing."""
    with contextlib.suppress(AttributeError, ValueError, OSError):
        stream.reconfigure(errors="backslashreplace")  # type: ignore[attr-defined]
    return stream


def main(argv: list[str] | None = None, stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """Run one command; never raises. Returns the exit status."""
    out = Console(file=stdout or _tolerant(sys.stdout), highlight=False, soft_wrap=True)
    err = Console(file=stderr or _tolerant(sys.stderr), highlight=False, soft_wrap=True)
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        with _terminate_as_interrupt():
            return _dispatch(argv, out, err)
    except UserError as exc:
        err.print(f"kb-validate: error: {printable_block(exc, '  ')}", markup=False)  # may quote a submission
        return int(exc.exit_code)
    except KeyboardInterrupt:
        err.print("kb-validate: interrupted; results written so far are kept", markup=False)
        return ExitCode.INTERRUPTED
    except Exception as exc:  # a bug in the validator: say so, keep the trace out of the user's way
        with tempfile.NamedTemporaryFile("w", prefix="kb-validate-crash-", suffix=".txt", delete=False) as log:
            traceback.print_exc(file=log)
        err.print(
            f"kb-validate: internal error ({type(exc).__name__}: {printable(exc)}); this is a bug in the validator, "
            f"not in your submission. Trace written to {log.name}; please attach it to an issue.",
            markup=False,
        )
        return ExitCode.INTERNAL


def run() -> NoReturn:
    """Console-script entry point."""
    sys.exit(main())
