"""Loading a problem directory in KernelBench's format."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.conftest import REPO
from validator.catalogue.problems import load_catalogue
from validator.findings import UserError

UPSTREAM_STYLE = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return torch.tanh(x)

batch_size = 16
dim = 16384

def get_inputs():
    return [torch.randn(batch_size, dim)]

def get_init_inputs():
    return []
"""


def _write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_repository_catalogue_loads_with_levels_ids_names_and_hashes():
    catalogue = load_catalogue(REPO / "problems")
    relu = catalogue.get(1, 19)
    assert relu is not None
    assert (relu.level, relu.problem_id, relu.name, relu.key) == (1, 19, "19_ReLU", "level1/19_ReLU")
    assert relu.sha256 == hashlib.sha256(relu.path.read_bytes()).hexdigest()
    assert not catalogue.findings, catalogue.findings


def test_an_upstream_kernelbench_layout_loads_including_levels_beyond_three(tmp_path):
    _write(tmp_path, "level1/22_Tanh.py", UPSTREAM_STYLE)
    _write(tmp_path, "level4/1_Some_HF_model.py", UPSTREAM_STYLE)
    _write(tmp_path, "level1/README.md", "not a problem")
    _write(tmp_path, "results/1_not_a_level.py", UPSTREAM_STYLE)
    catalogue = load_catalogue(tmp_path)
    assert [p.key for p in catalogue.problems] == ["level1/22_Tanh", "level4/1_Some_HF_model"]
    assert catalogue.levels == (1, 4)


def test_problem_files_missing_required_definitions_are_reported_not_loaded(tmp_path):
    _write(tmp_path, "level1/1_Good.py", UPSTREAM_STYLE)
    _write(tmp_path, "level1/2_No_inputs.py", UPSTREAM_STYLE.replace("def get_inputs", "def make_inputs"))
    _write(tmp_path, "level1/3_Broken.py", "def (:\n")
    catalogue = load_catalogue(tmp_path)
    assert [p.problem_id for p in catalogue.problems] == [1]
    codes = {f.file: f.code for f in catalogue.findings}
    assert codes == {"level1/2_No_inputs.py": "problem-format", "level1/3_Broken.py": "problem-unparsable"}
    assert "get_inputs" in catalogue.findings[0].message


def test_two_files_with_one_id_in_a_level_are_a_finding(tmp_path):
    _write(tmp_path, "level2/5_A.py", UPSTREAM_STYLE)
    _write(tmp_path, "level2/5_B.py", UPSTREAM_STYLE)
    catalogue = load_catalogue(tmp_path)
    assert len(catalogue.problems) == 1
    assert catalogue.findings[0].code == "problem-duplicate-id"


def test_a_directory_with_no_problems_is_a_user_error(tmp_path):
    (tmp_path / "level1").mkdir()
    with pytest.raises(UserError, match="holds no"):
        load_catalogue(tmp_path)
