"""Hostile submitter text for the site tests: every free-text field of a synthetic tree's submissions and
results gets payloads that would run script, open a dialog, load a remote image or make a live link if
any of it reached a page as Markdown or HTML. The payloads are printable (the schema refuses control
characters, but the site must not depend on the schema having run)."""

from __future__ import annotations

import json
from pathlib import Path

PAYLOADS = (
    "</title><script>alert(1)</script>",
    "x {: autofocus onfocus=alert(3) }",
    "[click](javascript:alert(4))",
    "![](https://evil.example/pixel.png)",
    '<img src=x onerror="alert(5)">',
    "<svg/onload=alert(6)>",
    "&lt;script&gt;alert(7)&lt;/script&gt;",
    '"><b onmouseover=alert(8)>b</b>',
    "<https://evil.example/autolink>",
    "<a href='javascript:alert(9)'>a</a>",
    "**bold** _em_ `code` # hash | pipe",
    "<details open ontoggle=alert(10)>",
    "{: #x onclick=alert(11) } <div markdown>*md*</div>",
    "<style>body{display:none}</style><iframe src=https://evil.example/></iframe>",
)
EVIL_HOST = "evil.example"
BAD_URLS = ("javascript:alert(12)", "data:text/html,<script>alert(13)</script>", "http://evil.example/plain")


def payload(index: int) -> str:
    return PAYLOADS[index % len(PAYLOADS)]


def everything(index: int) -> str:
    """All payloads in one string, starting at a different one per field."""
    return " ".join(PAYLOADS[index:] + PAYLOADS[:index])


def poison_submission(document: dict, index: int) -> dict:
    document = dict(document)
    document["name"] = payload(index)[:100]
    document["description"] = "\n\n".join(PAYLOADS) + "\n    indented\n!!! note\n    admonition"
    document["authors"] = [
        {"name": payload(index + 1), "url": BAD_URLS[index % len(BAD_URLS)]},
        {"name": payload(index + 2), "github": "x-y"},
        {"name": everything(index)[:200], "url": "https://trusted.example/author"},
    ]
    document["model"] = {"name": payload(index + 3), "provider": payload(index + 4), "version": payload(index + 5)}
    document["links"] = [{"label": payload(index + 6), "url": u} for u in BAD_URLS] + [
        {"label": payload(index + 7), "url": "https://trusted.example/paper"}
    ]
    document["target_hardware"] = [payload(index + 8), payload(index + 9)]
    for kernel in document.get("kernels", []):
        if "claimed" in kernel:
            kernel["claimed"]["hardware"] = payload(index + 10)
    return document


def poison_results(results: dict, index: int) -> dict:
    results = dict(results)
    results["submission_name"] = payload(index + 11)
    environment = results.get("environment", {})
    for number, field in enumerate(("gpu", "driver", "cuda", "torch", "triton", "harness_version")):
        environment[field] = payload(index + number)
    extra = environment.setdefault("extra", {})  # the runner's words the submission page shows
    extra.update(cpu_model=payload(index + 7), sandbox_detail=payload(index + 8), sandbox="none")
    for number, problem in enumerate(results.get("problems", [])):
        problem["error"] = everything(number % len(PAYLOADS))
        for flag in problem.get("flags", []):
            flag["message"] = payload(number)
    return results


def poison_tree(submissions_dir: Path, results_dir: Path) -> None:
    """Rewrite every submission and results file under the two directories in place."""
    for index, path in enumerate(sorted(submissions_dir.glob("*.json"))):
        path.write_text(json.dumps(poison_submission(json.loads(path.read_text()), index)), encoding="utf-8")
    for index, path in enumerate(sorted(results_dir.glob("*/*.json"))):
        path.write_text(json.dumps(poison_results(json.loads(path.read_text()), index)), encoding="utf-8")
