"""A kernel kept in its authors' repository is linked at its pinned commit from the submission page, escaped, and
scored against the hash its reference declares (never as a missing, hence stale, kernel)."""

from __future__ import annotations

from pathlib import Path

from site_src.sources import SubmissionDoc
from site_src.views.submissions import source_link, sources_html

COMMIT = "0123456789abcdef0123456789abcdef01234567"
SOURCE = {"repository": "https://github.com/some-lab/kernel-runs", "commit": COMMIT,
          "path": "runs/my run/k.py", "sha256": "ab" * 32}
KERNEL = {"level": 1, "problem_id": 23, "path": "level1_23_softmax_triton.py", "backend": "triton", "source": SOURCE}


def test_a_kernel_with_a_source_links_to_its_file_at_the_commit():
    link = source_link(KERNEL)
    assert f'href="https://github.com/some-lab/kernel-runs/blob/{COMMIT}/runs/my%20run/k.py"' in link
    assert ">some-lab/kernel-runs@0123456789ab</a>" in link


def test_a_kernel_without_a_source_or_with_a_malformed_one_gets_no_link():
    assert source_link({"path": "k.py"}) == ""
    assert source_link({"source": {**SOURCE, "commit": 7}}) == ""
    assert source_link({"source": {**SOURCE, "repository": "javascript:alert(1)//github.com/a/b"}}) == ""


def test_hostile_text_in_a_source_is_escaped():
    hostile = {**SOURCE, "repository": 'https://github.com/a"><script>alert(1)</script>/b', "path": "<img src=x>.py"}
    link = source_link({"source": hostile})
    assert "<script" not in link and "<img" not in link and '"><' not in link


def test_the_submission_page_links_the_kernel_and_scores_it_by_its_declared_hash(tmp_path: Path):
    doc = SubmissionDoc("lab-run", tmp_path / "lab-run.json", {"kernels": [KERNEL]})
    html = sources_html(doc, "../../", out=None)  # type: ignore[arg-type]  # no local file: nothing bundled
    assert source_link(KERNEL) in html and "Kept in its authors' repository" in html
    assert doc.kernel_sha256s == {(1, 23): SOURCE["sha256"]}
