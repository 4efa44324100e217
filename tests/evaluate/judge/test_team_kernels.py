"""The team's hand-written Triton kernels pass the full correctness protocol in CPU interpret mode.

Their speed is measured on a GPU; here CI guards that an edit never leaves one wrong."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO
from tests.evaluate.judge.test_run import finish, make_job, start_worker
from validator.catalogue.problems import load_catalogue

TEAM = REPO / "submissions" / "kernelbench-team"
ENTRIES = [k for k in json.loads((REPO / "submissions" / "kernelbench-team.json").read_text())["kernels"]
           if k["backend"] == "triton"]


@pytest.mark.slow
@pytest.mark.parametrize("entry", ENTRIES, ids=[e["path"].removesuffix(".py") for e in ENTRIES])
def test_a_team_triton_kernel_is_correct_in_cpu_interpret_mode(entry, tmp_path):
    problem = load_catalogue(REPO / "problems").get(entry["level"], entry["problem_id"])
    job = make_job(problem.key, TEAM / entry["path"], tmp_path, interpret=True)
    data = finish(*start_worker(job, tmp_path / "run"), timeout=300)
    assert data["status"] == "correct", (entry["path"], data["error"], data["flags"])


def _non_constexpr_globals(source: str) -> set[str]:
    """Module-level names a @triton.jit function reads that hold plain values: Triton refuses to compile
    that on a GPU, while the CPU interpreter accepts it, so interpret mode alone cannot catch it."""
    import ast

    tree = ast.parse(source)
    plain = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and not (isinstance(node.value, ast.Call)
                                                 and ast.unparse(node.value.func).endswith("constexpr")):
            plain |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    found = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            local = {a.arg for a in node.args.args} | {n.id for n in ast.walk(node)
                                                       if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            found |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                      and n.id in plain and n.id not in local}
    return found


def test_the_triton_check_finds_a_plain_global_read_inside_a_kernel():
    source = "import triton\nimport triton.language as tl\nK = 2.0\nC = tl.constexpr(3.0)\n\n" \
             "@triton.jit\ndef k(x_ptr):\n    tl.store(x_ptr, K * C)\n"
    assert _non_constexpr_globals(source) == {"K"}


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["path"].removesuffix(".py") for e in ENTRIES])
def test_a_team_triton_kernel_reads_only_constexpr_globals(entry):
    assert _non_constexpr_globals((TEAM / entry["path"]).read_text()) == set()
