"""The semantic check that a submission passes for no baseline and no other submission (`identity`)."""

from __future__ import annotations

from pathlib import Path

from validator import files
from validator.findings import Finding
from validator.submission.identity import Claim, collisions, text_problem
from validator.submission.records import Submission


def sibling_claims(directory: Path, shown_dir: Path) -> list[Claim]:
    """The name and slug of every other submission beside this one; an unreadable file is its own check's
    business (its validation reports it), so it is passed over here."""
    claims = []
    for path in sorted(directory.glob("*.json")):
        try:
            document = files.read_json(path, files.SUBMISSION_BYTES, str(path), "a submission document")
        except (files.JsonError, OSError):
            continue
        if isinstance(document, dict) and isinstance(document.get("name"), str):
            slug = document.get("slug") if isinstance(document.get("slug"), str) else path.stem
            claims.append(Claim(str(shown_dir / path.name), slug, document["name"]))
    return claims


def identity_findings(submission: Submission, shown: str) -> list[Finding]:
    """Invisible characters or mixed scripts in the name and authors, and a name or slug that looks like a
    baseline's or another submission's in the same directory."""
    def finding(code: str, message: str, where: str) -> Finding:
        return Finding(code, "semantics", message, file=shown, json_path=where)

    found = []
    texts = [("$.name", submission.name)] + [
        (f"$.authors[{i}].name", author["name"]) for i, author in enumerate(submission.document["authors"])
    ]
    for where, text in texts:
        if (problem := text_problem(text)) is not None:
            found.append(finding("name-deceptive-characters", problem, where))
    claim = Claim(shown, submission.slug, submission.name)
    others = sibling_claims(submission.document_path.parent, Path(shown).parent)
    own = submission.document_path.name
    others = [c for c in others if Path(c.file).name != own]
    for code, message in collisions(claim, others):
        found.append(finding(code, message, "$.slug" if code == "slug-collides" else "$.name"))
    return found
