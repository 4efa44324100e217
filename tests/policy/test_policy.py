"""Static policy: the fixture corpus, the example kernels, the rules page and the pipeline stage."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.paths import FIXTURES, REPO
from validator.findings import Severity
from validator.policy import rules
from validator.policy.rules import RULES, RULES_BY_CODE, rules_markdown
from validator.policy.stage import policy_findings

CORPUS = FIXTURES / "policy"
CASES = sorted(CORPUS.glob("*.pysrc"))
EXPECT = re.compile(r"(?:#|//)\s*expect:\s*([\w\s,-]+)$")
BACKEND = re.compile(r"^#\s*backend:\s*([\w-]+)")


def _expected(source: str) -> set[tuple[str, int]]:
    marks = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            marks.update((code.strip(), number) for code in match.group(1).split(","))
    return marks


def _backend(source: str) -> str:
    match = BACKEND.match(source)
    return match.group(1) if match else "cuda"


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_each_corpus_case_gets_exactly_the_codes_marked_on_its_lines(case: Path) -> None:
    source = case.read_text(encoding="utf-8")
    findings = policy_findings(source, case.name, _backend(source))
    got = {(f.code, f.line) for f in findings}
    expected = _expected(source)
    if case.stem.startswith("clean--"):
        assert findings == [], [f"{f.line}: {f.code} {f.message}" for f in findings]
        return
    assert case.stem.split("--")[0] in {code for code, _ in expected}, "the file name names its reason code"
    assert expected <= got, f"missing {sorted(expected - got)}; got {sorted(got)}"
    assert {c for c, _ in got} == {c for c, _ in expected}, f"unexpected codes: {sorted(got - expected)}"


def test_every_rule_has_a_corpus_case() -> None:
    covered = {case.stem.split("--")[0] for case in CASES}
    assert {rule.code for rule in RULES} <= covered


def test_corpus_has_legitimate_cases_that_must_stay_clean() -> None:
    assert len([c for c in CASES if c.stem.startswith("clean--")]) >= 3


@pytest.mark.parametrize("kernel", sorted((REPO / "submissions" / "kernelbench-team-examples").glob("*.py")),
                         ids=lambda p: p.name)
def test_the_project_example_kernels_have_no_findings(kernel: Path) -> None:
    backend = "cuda" if "cuda" in kernel.name else "triton"
    assert policy_findings(kernel.read_text(encoding="utf-8"), kernel.name, backend) == []


def test_findings_carry_stage_file_line_column_and_the_rule_severity() -> None:
    source = "import torch\n\nx = 1\ntorch.cuda.synchronize = None\ny = torch.ones(2).half()\n"
    findings = policy_findings(source, "k.py", "cuda")
    patch, downcast = findings
    assert (patch.code, patch.stage, patch.file, patch.line, patch.column) == ("monkey-patch", "policy", "k.py", 4, 1)
    assert patch.severity == Severity.ERROR
    assert (downcast.code, downcast.line, downcast.severity) == ("precision-toggle", 5, Severity.WARNING)


def test_torch_compile_is_allowed_only_for_the_compiler_baseline_backend() -> None:
    source = "import torch\nf = torch.compile(torch.relu)\nimport threading\n"
    assert {f.code for f in policy_findings(source, "k.py", "triton")} == {"torch-compile", "thread"}
    assert {f.code for f in policy_findings(source, "k.py", "torch-compile")} == {"thread"}


def test_the_compiler_baseline_may_compile_the_reference_model_and_nothing_else_may() -> None:
    source = "import torch\nclass Model(torch.nn.Module):\n    pass\nclass ModelNew(Model):\n    pass\n"
    assert {f.code for f in policy_findings(source, "k.py", "cuda")} == {"reference-fallback"}
    assert {f.code for f in policy_findings(source, "k.py", "torch-compile")} == set()


def test_a_flagged_import_is_reported_once_not_at_every_use() -> None:
    source = "import threading\nthreading.Thread()\nthreading.Thread()\n"
    assert [(f.code, f.line) for f in policy_findings(source, "k.py", "cuda")] == [("thread", 1)]


def test_source_string_findings_point_at_the_line_inside_the_string() -> None:
    source = 'SRC = """\nint a;\nint b;\ncudaStreamCreate(&s);\n"""\n'
    (finding,) = policy_findings(source, "k.py", "cuda")
    assert (finding.code, finding.line) == ("stream", 4)


def test_reading_an_attribute_of_torch_backends_is_not_a_toggle() -> None:
    source = "import torch\nassert not torch.backends.cuda.matmul.allow_tf32\n"
    assert policy_findings(source, "k.py", "cuda") == []


def test_the_site_rules_page_is_generated_from_the_rules_table() -> None:
    page = REPO / "site_src" / "pages" / "policy-rules.md"
    assert page.read_text(encoding="utf-8") == rules_markdown(), (
        "regenerate: python -c 'from validator.policy.rules import rules_markdown as m; "
        "open(\"site_src/pages/policy-rules.md\", \"w\").write(m())'"
    )


def test_every_rule_code_is_kebab_case_and_documented() -> None:
    for rule in RULES:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.code)
        assert rule.catches and rule.why
    assert len(RULES_BY_CODE) == len(RULES)


def _with_kernel(tree: Path, source: str) -> Path:
    kernel = tree / "submissions" / "kernelbench-team-examples" / "level1_19_relu_cuda.py"
    kernel.write_text(source, encoding="utf-8")
    return tree / "submissions" / "kernelbench-team-examples.json"


def test_the_pipeline_fails_a_submission_whose_kernel_breaks_an_error_rule(example_tree: Path, cli) -> None:
    hostile = (CORPUS / "stream.pysrc").read_text(encoding="utf-8")
    result = cli("validate", str(_with_kernel(example_tree, hostile)), "--no-gpu", "--problems-dir",
                 str(REPO / "problems"))
    assert result.exit_code == 1
    assert "stream" in result.stdout and "level1_19_relu_cuda.py:7" in result.stdout


def test_the_pipeline_passes_a_kernel_with_only_review_warnings(example_tree: Path, cli) -> None:
    flagged = (CORPUS / "precision-toggle--downcast.pysrc").read_text(encoding="utf-8")
    # ReLU's forward takes one input; the semantics stage's arity check would stop a two-input forward first
    flagged = flagged.replace("def forward(self, a, b):", "def forward(self, a, b=None):")
    result = cli("validate", str(_with_kernel(example_tree, flagged)), "--no-gpu", "--problems-dir",
                 str(REPO / "problems"))
    assert result.exit_code == 0
    assert "precision-toggle" in result.stdout


def test_state_the_reference_itself_carries_across_calls_is_not_a_cache() -> None:
    # December 2024's VanillaRNNHidden keeps its hidden state in self.hidden and updates it in every forward
    reference = (REPO / "problems" / "tracks" / "91bfc2c" / "level3" / "34_VanillaRNNHidden.py").read_text()
    kernel = (
        "import torch\n\n\nclass ModelNew(torch.nn.Module):\n"
        "    def __init__(self, input_size, hidden_size, output_size):\n"
        "        super().__init__()\n        self.hidden = torch.randn((8, hidden_size))\n"
        "        self.i2h = torch.nn.Linear(input_size + hidden_size, hidden_size)\n\n"
        "    def forward(self, x):\n"
        "        self.hidden = torch.tanh(self.i2h(torch.cat((x, self.hidden.to(x.device)), dim=1)))\n"
        "        return self.hidden\n"
    )
    assert "self.hidden" in rules.written_state(ast.parse(reference))
    assert policy_findings(kernel, "k.py", "cuda", reference) == []
    assert [f.code for f in policy_findings(kernel, "k.py", "cuda")] == ["cross-call-cache"]  # no reference: flagged
    other = kernel.replace("self.hidden = torch.tanh", "self.cached = torch.tanh")
    assert [f.code for f in policy_findings(other, "k.py", "cuda", reference)] == ["cross-call-cache"]


def test_the_policy_stage_names_the_problem_of_each_finding(example_tree: Path) -> None:
    from validator.catalogue.problems import load_catalogue
    from validator.machine import probe
    from validator.policy.stage import run_stage
    from validator.run_context import RunOptions, StageContext
    from validator.submission.document import read_json
    from validator.submission.records import submission_from_document

    path = _with_kernel(example_tree, (CORPUS / "thread.pysrc").read_text(encoding="utf-8"))
    submission = submission_from_document(read_json(path, str(path)), path)
    context = StageContext(submission, load_catalogue(REPO / "problems"), probe(), RunOptions(), str(path))
    (finding,) = run_stage(context).findings
    assert (finding.code, finding.problem, finding.line) == ("thread", "level1/19_ReLU", 1)
    assert finding.file.endswith("kernelbench-team-examples/level1_19_relu_cuda.py")


def test_the_corpus_directory_has_no_stray_files() -> None:
    assert {p.suffix for p in CORPUS.iterdir()} <= {".pysrc", ".md"}


# Issue 46, finding 13: spellings that reached os, sys and the builtins, or libc, past the rules.
NAMESPACE_SPELLINGS = [
    ("import os\nf = vars(os)['system']\n", "dynamic-code"),
    ("import sys\nm = vars(sys)['modules']\n", "dynamic-code"),
    ("import os\nf = os.__dict__['system']\n", "dynamic-code"),
    ("import sys\nm = sys.__dict__['modules']\n", "dynamic-code"),
    ("import builtins\nf = builtins.__dict__['__import__']\n", "dynamic-code"),
    ("f = __builtins__['__import__']\n", "dynamic-code"),
    ("f = __builtins__.__dict__\n", "dynamic-code"),
    ("import builtins\nf = vars(builtins)['exec']\n", "dynamic-code"),
    ("f = vars(__builtins__)\n", "dynamic-code"),
    ("import os\nf = getattr(os, 'getpid')\n", "dynamic-code"),
    ("import sys\nname = 'modules'\nm = getattr(sys, name)\n", "dynamic-code"),
    ("import os\nf = getattr(os, 'system')\n", "subprocess"),
    ("import gc\nx = gc.isenabled()\n", "introspection"),
    ("from gc import isenabled\n", "introspection"),
]
SOURCE_SPELLINGS = [
    ("int fd = ::open(path, O_WRONLY);", "escape-helpers"),
    ("int fd = ::openat(AT_FDCWD, path, O_WRONLY);", "escape-helpers"),
    ("int fd = ::creat(path, 0644);", "escape-helpers"),
    ("::write(fd, buf, n);", "escape-helpers"),
    ("FILE* f = freopen(path, \"w\", stdout);", "file-write"),
    ("__attribute__((constructor)) static void early() {}", "escape-helpers"),
    ("__attribute__((used, destructor)) static void late() {}", "escape-helpers"),
    ("[[gnu::constructor]] static void early() {}", "escape-helpers"),
]


@pytest.mark.parametrize(("source", "code"), NAMESPACE_SPELLINGS, ids=[s for s, _ in NAMESPACE_SPELLINGS])
def test_dynamic_access_to_os_sys_builtins_and_gc_is_an_error(source: str, code: str) -> None:
    findings = policy_findings(source, "k.py", "cuda")
    assert (code, Severity.ERROR) in {(f.code, f.severity) for f in findings}, findings


@pytest.mark.parametrize(("line", "code"), SOURCE_SPELLINGS, ids=[s for s, _ in SOURCE_SPELLINGS])
def test_libc_calls_and_load_time_hooks_in_inline_sources_are_errors(line: str, code: str) -> None:
    source = f'SRC = """\n#include <fcntl.h>\n{line}\n"""\n'
    findings = policy_findings(source, "k.py", "cuda")
    assert (code, 3) in {(f.code, f.line) for f in findings}, findings


def test_members_named_open_and_ordinary_attributes_stay_allowed() -> None:
    source = ('import torch\nd = getattr(torch, "float16")\nk = vars(object())\n'
              'SRC = """\n__attribute__((always_inline)) void f() { stream_.open(); Foo::open(1); }\n"""\n')
    assert policy_findings(source, "k.py", "cuda") == []
