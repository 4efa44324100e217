"""Code lines of the measuring protocol's seven files: correctness and timing, the redesign's bar of 800 lines.

    python bench/protocol_lines.py [--max 800]

The protocol redesign set a bar on the code that judges a kernel's outputs and times it: "correctness + timing <= 800
lines". This counts it over exactly the files in `FILES` (the judge's timing statistics, its bound across the trust
boundary, the verdicts, the float64 precision check, the schedule of trial inputs, the input variants and the
comparison of outputs). A code line is one that holds a token of code: blank lines, comment lines and docstrings (a
module's, class's or function's, and an attribute's: a string statement right after an assignment) are not counted,
found with `tokenize` and `ast`, so a `#` or a triple quote inside a string is no comment and no docstring. Prints
each file's code and total lines, and the sums; with --max N, exits 1 when the code lines add up to more than N.
Reads the source only: no GPU, no torch. tests/evaluate/test_protocol_lines.py holds the tree to the bar.
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = (
    "validator/evaluate/judge/timing.py",
    "validator/evaluate/judge/judge_timing.py",
    "validator/evaluate/correctness.py",
    "validator/evaluate/judge/verdicts.py",
    "validator/evaluate/judge/precision.py",
    "validator/evaluate/judge/trial_inputs.py",
    "validator/evaluate/input_variants.py",
)
_NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
             tokenize.ENDMARKER}


def docstring_spans(tree: ast.AST) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) positions, as (row, column), of the docstrings in `tree`: the string expression that opens a
    module, class or function body, and a string expression statement right after an assignment (an attribute's
    docstring, as Sphinx and this project read them)."""
    spans = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for i, statement in enumerate(body):
            opens = i == 0 and isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            after_assignment = i > 0 and isinstance(body[i - 1], ast.Assign | ast.AnnAssign | ast.AugAssign)
            if (opens or after_assignment) and isinstance(statement, ast.Expr) \
                    and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str):
                spans.append(((statement.lineno, statement.col_offset),
                              (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)))
    return spans


def code_lines(source: str) -> int:
    """The lines of `source` that hold a token other than a comment, a docstring, or layout."""
    spans = docstring_spans(ast.parse(source))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _NOT_CODE or any(start <= token.start and token.end <= end for start, end in spans):
            continue
        lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines)


def count(root: Path = ROOT) -> list[tuple[str, int, int]]:
    """(file, code lines, total lines) for each file of `FILES` under `root`."""
    rows = []
    for name in FILES:
        source = (root / name).read_text(encoding="utf-8")
        rows.append((name, code_lines(source), len(source.splitlines())))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=None, metavar="N", help="exit 1 when the code lines exceed N")
    args = parser.parse_args(argv)
    rows = count()
    width = max(len(name) for name, _, _ in rows)
    print(f"{'file':{width}}  {'code':>5}  {'total':>5}")
    for name, code, total in rows:
        print(f"{name:{width}}  {code:>5}  {total:>5}")
    code, total = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"{'total':{width}}  {code:>5}  {total:>5}")
    if args.max is not None and code > args.max:
        print(f"{code} code lines, over the bar of {args.max}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
