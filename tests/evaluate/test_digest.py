"""The runner's commitment to a timed call's outputs: the same outputs give the same digest; any change of a
bit, an order or a position gives another."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch

from tests.paths import REPO
from validator.evaluate import digest
from validator.evaluate.digest import output_digest


def test_equal_outputs_give_equal_digests_and_a_one_bit_change_does_not():
    out = torch.randn(257, 31)
    assert output_digest([out]) == output_digest([out.clone()])
    flipped = out.clone()
    flipped.view(torch.int32)[100, 3] ^= 1  # the lowest mantissa bit of one element
    assert output_digest([flipped]) != output_digest([out])


def test_position_and_order_count_not_just_the_multiset_of_values():
    out = torch.arange(64, dtype=torch.float32)
    assert output_digest([out.flip(0)]) != output_digest([out])
    a, b = torch.ones(4), torch.zeros(4)
    assert output_digest([a, b]) != output_digest([b, a])


def test_a_matrix_product_s_digest_is_not_its_sum():
    """A linear digest could be forged from the inputs (the sum of A @ B is cheap); this one is not linear."""
    x = torch.randint(0, 1000, (64,), dtype=torch.int32)
    y = x.clone()
    y[0] += 5
    y[1] -= 5  # the same sum of values
    assert output_digest([y]) != output_digest([x])


@pytest.mark.parametrize("tensor", [torch.tensor(True), torch.zeros(3, dtype=torch.float16), torch.empty(0),
                                    torch.randn(3, 4).t(), torch.arange(7, dtype=torch.uint8)])
def test_any_dtype_shape_or_layout_is_digested(tensor: torch.Tensor):
    assert output_digest([tensor]) == output_digest([tensor.contiguous().clone()])


def test_chunks_do_not_change_the_value(monkeypatch):
    out = torch.randn(1000)
    whole = output_digest([out])
    monkeypatch.setattr(digest, "CHUNK_WORDS", 7)  # the CPU path digests in chunks
    assert output_digest([out]) == whole


def test_the_gpu_kernel_computes_the_same_sum_as_the_cpu_path():
    """The Triton pass (run by Triton's interpreter on CPU tensors, in a process that starts with it on) and
    the torch version agree."""
    pytest.importorskip("triton")
    code = """
import torch
from validator.evaluate import digest
words = digest._words(torch.randn(3 * digest.BLOCK + 17))
blocks = -(-words.numel() // digest.BLOCK)
partial = torch.empty(blocks, dtype=torch.int64)
digest._triton_kernel()[(blocks,)](words, words.numel(), (2 * digest._SALT) & digest._U32, partial,
                                   BLOCK=digest.BLOCK)
print(int(partial.sum()) == digest._cpu_sum(words, 2))
"""
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.stdout.strip().splitlines()[-1:] == ["True"], done.stderr[-1500:]


@pytest.mark.gpu
def test_the_warm_up_compiles_the_variant_that_outputs_then_reuse(tmp_path):
    """`digest.warm` leaves the one compiled kernel that a typical output's digest (float32, a word count divisible
    by 16) runs: a runner, whose Triton cache starts empty, compiles nothing inside its timed calls."""
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    code = """
import pathlib, sys, torch
from validator.evaluate import digest
cubins = lambda: len(list(pathlib.Path(sys.argv[1]).rglob("*.cubin")))
digest.warm(torch.device("cuda"))
warmed = cubins()
digest.output_digest([torch.randn(4096, 1024, device="cuda")])
digest.output_digest([torch.randn(3, 4096, device="cuda", dtype=torch.float16)])
print(warmed, cubins())
"""
    env = {**os.environ, "TRITON_CACHE_DIR": str(tmp_path / "triton"), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "triton")], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.stdout.split() == ["1", "1"], done.stdout + done.stderr[-1500:]
