"""ModelNew's constructor and forward against the problem's get_init_inputs()/get_inputs(), by AST alone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from validator.submission.arity import arity_mismatches, method_signature, returned_length

PROBLEM = '''import torch


class Model(torch.nn.Module):
    def __init__(self, features, eps=1e-5):
        super().__init__()

    def forward(self, x, y):
        return x + y


def get_inputs():
    return [torch.rand(2, 3), torch.rand(2, 3)]


def get_init_inputs():
    return [3]
'''


@pytest.fixture
def problem(tmp_path: Path) -> Path:
    path = tmp_path / "level1" / "7_Add.py"
    path.parent.mkdir()
    path.write_text(PROBLEM)
    return path


@pytest.mark.parametrize("kernel", [
    "class ModelNew(torch.nn.Module):\n    def __init__(self, features):\n        pass\n"
    "    def forward(self, x, y):\n        pass\n",
    "class ModelNew(torch.nn.Module):\n    def __init__(self, *args):\n        pass\n"
    "    def forward(self, *inputs):\n        pass\n",
    "class ModelNew(torch.nn.Module):\n    def __init__(self, features, eps=1e-5, *, fused=True):\n        pass\n"
    "    def forward(self, x, y=None):\n        pass\n",
    "class Base(torch.nn.Module):\n    def __init__(self, features):\n        pass\n"
    "    def forward(self, x, y):\n        pass\n\n\nclass ModelNew(Base):\n    pass\n",
    "from elsewhere import Base\n\n\nclass ModelNew(Base):\n    pass\n",  # cannot tell: not checked
])
def test_a_kernel_that_takes_what_the_problem_gives_passes(problem: Path, kernel: str) -> None:
    assert arity_mismatches(kernel, problem) == []


def test_a_wrong_constructor_and_forward_are_both_named_with_both_signatures(problem: Path) -> None:
    kernel = ("class ModelNew(torch.nn.Module):\n    def __init__(self, features, groups):\n        pass\n"
              "    def forward(self, x):\n        pass\n")
    init, forward = arity_mismatches(kernel, problem)
    assert init.method == "__init__" and forward.method == "forward"
    assert "ModelNew.__init__(self, features, groups) cannot take the 1 argument(s) get_init_inputs()" in init.message
    assert "level1/7_Add.py" in init.message and "Model.__init__(self, features, eps=1e-05)" in init.message
    assert "ModelNew.forward(self, x) cannot take the 2 argument(s) get_inputs()" in forward.message


def test_nn_module_s_own_constructor_takes_nothing_and_a_required_keyword_cannot_be_given(problem: Path) -> None:
    inherited = "class ModelNew(nn.Module):\n    def forward(self, x, y):\n        pass\n"
    assert [m.method for m in arity_mismatches(inherited, problem)] == ["__init__"]
    keyword = ("class ModelNew(nn.Module):\n    def __init__(self, features, *, mode):\n        pass\n"
               "    def forward(self, x, y):\n        pass\n")
    assert [m.method for m in arity_mismatches(keyword, problem)] == ["__init__"]


def test_only_literal_lists_are_counted() -> None:
    tree = ast.parse("def get_inputs():\n    return [a, *rest]\n\n\ndef get_init_inputs():\n    return [1, 2]\n")
    assert returned_length(tree, "get_inputs") is None and returned_length(tree, "get_init_inputs") == 2
    assert method_signature(ast.parse("class A:\n    pass\n"), "ModelNew", "forward") is None
