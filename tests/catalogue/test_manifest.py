"""The catalogue manifest (static facts, measurements, the CI up-to-date check) and speed-of-light bounds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from tests.paths import FIXTURES, REPO
from validator.catalogue.manifest import (
    dumps,
    generate,
    merge_measurements,
    stale_keys,
    static_entry,
    static_part,
)
from validator.catalogue.manifest_entry import ManifestError, read_entries
from validator.catalogue.manifest_entry import load_document as read_manifest
from validator.catalogue.problems import load_catalogue
from validator.catalogue.speed_of_light import UnknownHardware, bound_ms, ceilings_for, speed_of_light
from validator.results.layout import hardware_key

CORPUS = FIXTURES / "catalogue"
REGENERATE = "run `kb-validate catalogue manifest --write` and commit problems/manifest.json"


@pytest.fixture
def catalogue_cli(cli, monkeypatch):
    from validator import commands

    monkeypatch.setitem(commands.VERBS, "catalogue", "validator.commands.catalogue")
    return lambda *argv: cli("catalogue", *argv)


def _problem(name: str):
    return next(p for p in load_catalogue(CORPUS).problems if p.name == name)


def _tree(tmp_path: Path, names: list[str]) -> Path:
    (tmp_path / "level1").mkdir(parents=True)
    for name in names:
        shutil.copy(CORPUS / "level1" / name, tmp_path / "level1" / name)
    return tmp_path


@pytest.mark.slow
def test_the_committed_manifest_matches_the_problem_files() -> None:
    committed = read_manifest(REPO / "problems" / "manifest.json")
    assert committed is not None, REGENERATE
    fresh = generate(load_catalogue(REPO / "problems"), committed)
    assert stale_keys(committed, fresh) == [], REGENERATE


def test_a_static_entry_has_full_size_shapes_flops_and_minimum_bytes() -> None:
    entry = static_entry(_problem("1_Passes"))
    assert entry["inputs"] == [{"shape": [64, 32], "dtype": "float32"}]
    assert entry["init_inputs"] == [32]
    assert entry["output"] == {"shape": [64, 32], "dtype": "float32"}
    assert entry["flops"] == 2 * 64 * 32 * 32
    assert entry["min_bytes"] == (64 * 32 + 32 * 32 + 32 + 64 * 32) * 4
    assert entry["key"] == "level1/1_Passes" and len(entry["sha256"]) == 64


def test_integer_inputs_are_described_with_their_dtype() -> None:
    entry = static_entry(_problem("13_IntegerInputs"))
    assert entry["inputs"] == [{"shape": [32, 16], "dtype": "int64"}]


def test_an_op_without_meta_support_gives_null_flops_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "level1").mkdir()
    source = (CORPUS / "level1" / "1_Passes.py").read_text().replace(
        "return torch.relu(self.linear(x))", "return self.linear(x) * x.sum().item()")
    (tmp_path / "level1" / "1_Item.py").write_text(source)
    entry = static_entry(load_catalogue(tmp_path).problems[0])
    assert entry["flops"] is None and entry["output"] is None and entry["min_bytes"] is None
    assert "meta" in entry["meta_note"]
    assert entry["inputs"] == [{"shape": [64, 32], "dtype": "float32"}]


def test_a_problem_that_fails_to_import_is_recorded_with_the_error() -> None:
    entry = static_entry(_problem("11_ImportError"))
    assert entry["error"].startswith("import-error")


def test_an_exemption_is_part_of_the_manifest() -> None:
    assert static_entry(_problem("14_Exempt"))["catalogue_exempt"] == {
        "ignores-weights": "the unused layer is part of the upstream problem's definition"}


def _report(entries: list[dict], hardware: str = "nvidia-h100-80gb-hbm3") -> dict:
    return {"report": "catalogue-check", "hardware": hardware, "finished_at": "2026-11-22T10:00:00+00:00",
            "problems": entries}


def test_measurements_merge_by_hardware_only_for_the_measured_content() -> None:
    manifest = generate(load_catalogue(CORPUS))
    key, sha = "level1/1_Passes", manifest["problems"]["level1/1_Passes"]["sha256"]
    merged, skipped = merge_measurements(manifest, _report([
        {"key": key, "sha256": sha, "eager_ms": 1.23456, "peak_mem_bytes": 4096},
        {"key": "level1/13_IntegerInputs", "sha256": "0" * 64, "eager_ms": 2.0, "peak_mem_bytes": 1},
        {"key": "level1/2_ZerosPass", "sha256": "x", "eager_ms": None},
    ]))
    assert (merged, skipped) == (1, ["level1/13_IntegerInputs"])
    assert manifest["problems"][key]["measured"]["nvidia-h100-80gb-hbm3"] == {
        "eager_ms": 1.2346, "peak_mem_bytes": 4096, "measured_at": "2026-11-22T10:00:00+00:00", "sha256": sha}


def test_measurements_survive_regeneration_until_the_problem_changes(tmp_path: Path) -> None:
    root = _tree(tmp_path, ["1_Passes.py"])
    first = generate(load_catalogue(root))
    sha = first["problems"]["level1/1_Passes"]["sha256"]
    merge_measurements(first, _report([{"key": "level1/1_Passes", "sha256": sha, "eager_ms": 1.0,
                                        "peak_mem_bytes": 8}]))
    again = generate(load_catalogue(root), first)
    assert "nvidia-h100-80gb-hbm3" in again["problems"]["level1/1_Passes"]["measured"]
    path = root / "level1" / "1_Passes.py"
    path.write_text(path.read_text().replace("batch = 64", "batch = 128"))
    changed = generate(load_catalogue(root), again)
    assert changed["problems"]["level1/1_Passes"]["measured"] == {}


def test_stale_keys_name_changed_added_and_removed_problems() -> None:
    manifest = generate(load_catalogue(CORPUS))
    edited = json.loads(dumps(manifest))
    edited["problems"]["level1/1_Passes"]["flops"] = 1
    del edited["problems"]["level1/2_ZerosPass"]
    edited["problems"]["level1/99_Gone"] = {"key": "level1/99_Gone"}
    edited["problems"]["level1/4_IgnoresInput"]["measured"] = {"gpu": {}}  # measurements are not static
    assert stale_keys(edited, manifest) == ["level1/1_Passes", "level1/2_ZerosPass", "level1/99_Gone"]
    assert stale_keys(static_part(manifest), manifest) == []


def test_dumps_writes_json_that_reads_back_equal_with_one_line_per_problem() -> None:
    manifest = generate(load_catalogue(CORPUS))
    text = dumps(manifest)
    assert json.loads(text) == manifest
    assert sum(line.startswith('  "level1/') for line in text.splitlines()) == len(manifest["problems"])


@pytest.mark.parametrize("kind", [torch.nn.RNN, torch.nn.LSTM, torch.nn.GRU])
@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("bidirectional", [True, False])
def test_recurrent_layers_counted_by_formula_match_the_meta_count(kind, batch_first, bidirectional) -> None:
    from validator.catalogue.manifest import _rnn_formula

    with torch.device("meta"):
        rnn = kind(7, 6, 2, batch_first=batch_first, bidirectional=bidirectional)
        x = torch.randn(3, 5, 7)
        with torch.no_grad(), FlopCounterMode(display=False) as counter:
            expected, expected_state = rnn(x)
    flops: list[int] = []
    out, state = _rnn_formula(rnn, x, flops)
    assert flops == [counter.get_total_flops()]
    assert out.shape == expected.shape
    if kind is torch.nn.LSTM:
        assert [s.shape for s in state] == [s.shape for s in expected_state]
    else:
        assert state.shape == expected_state.shape


def test_the_manifest_verb_checks_writes_and_merges(tmp_path: Path, catalogue_cli) -> None:
    root = _tree(tmp_path / "problems", ["1_Passes.py"])
    assert catalogue_cli("manifest", "--problems-dir", str(root)).exit_code == 1  # none yet
    assert catalogue_cli("manifest", "--write", "--problems-dir", str(root)).exit_code == 0
    assert catalogue_cli("manifest", "--check", "--problems-dir", str(root)).exit_code == 0
    sha = json.loads((root / "manifest.json").read_text())["problems"]["level1/1_Passes"]["sha256"]
    report = tmp_path / "check.json"
    report.write_text(json.dumps(_report([{"key": "level1/1_Passes", "sha256": sha, "eager_ms": 3.0,
                                           "peak_mem_bytes": 10}])))
    merged = catalogue_cli("manifest", "--write", "--measurements", str(report), "--problems-dir", str(root))
    assert merged.exit_code == 0 and "merged 1" in merged.stdout
    measured = json.loads((root / "manifest.json").read_text())["problems"]["level1/1_Passes"]["measured"]
    assert measured["nvidia-h100-80gb-hbm3"]["eager_ms"] == 3.0
    (root / "level1" / "1_Passes.py").write_text((root / "level1" / "1_Passes.py").read_text() + "\n# edit\n")
    stale = catalogue_cli("manifest", "--problems-dir", str(root))
    assert stale.exit_code == 1 and "level1/1_Passes" in stale.stdout


def test_the_manifest_verb_rejects_bad_measurement_files(tmp_path: Path, catalogue_cli) -> None:
    root = _tree(tmp_path / "problems", ["1_Passes.py"])
    report = tmp_path / "check.json"
    report.write_text(json.dumps({"report": "catalogue-check", "hardware": None}))
    assert catalogue_cli("manifest", "--measurements", str(report), "--problems-dir", str(root)).exit_code == 2
    result = catalogue_cli("manifest", "--write", "--measurements", str(report), "--problems-dir", str(root))
    assert result.exit_code == 2 and "$.hardware" in result.stderr
    report.write_text("{")
    assert catalogue_cli("manifest", "--write", "--measurements", str(report), "--problems-dir",
                         str(root)).exit_code == 2


def test_hardware_keys_of_h100_and_h200_find_their_ceilings() -> None:
    assert ceilings_for(hardware_key("NVIDIA H100 80GB HBM3")).name == "NVIDIA H100 SXM"
    assert ceilings_for(hardware_key("NVIDIA H200")).name == "NVIDIA H200"
    with pytest.raises(UnknownHardware, match="nvidia-a100"):
        ceilings_for(hardware_key("NVIDIA A100-SXM4-80GB"))


def test_an_fp32_matmul_is_bound_by_the_datasheet_fp32_peak() -> None:
    flops, moved = 2 * 4096**3, 3 * 4096 * 4096 * 4
    bound = speed_of_light(flops, moved, "nvidia-h100-80gb-hbm3", "float32")
    assert bound.limited_by == "compute"
    assert bound.ms == pytest.approx(flops / 67e12 * 1e3)
    assert bound.compute_ceiling is not None and bound.compute_ceiling.source.startswith("datasheet")


def test_an_elementwise_op_is_bound_by_the_measured_copy_bandwidth() -> None:
    moved = 2 * 4096 * 131072 * 4
    bound = speed_of_light(0, moved, "nvidia-h200", "float32")
    assert bound.limited_by == "memory"
    assert bound.ms == pytest.approx(moved / 4.3e12 * 1e3)
    assert bound.bandwidth_ceiling.source.startswith("measured")


def test_bf16_uses_the_tensor_core_ceiling_and_unknown_flops_fall_back_to_bytes() -> None:
    flops = 2 * 8192**3
    assert bound_ms(flops, 1, "nvidia-h200", "torch.bfloat16") == pytest.approx(flops / 788e12 * 1e3)
    assert bound_ms(None, 3_000_000, "nvidia-h100-sxm5-80gb") == pytest.approx(1e-3)
    assert speed_of_light(10**12, 8, "nvidia-h200", "int64").limited_by == "memory"


def test_the_committed_manifest_reads_as_typed_entries_and_writes_back_byte_for_byte() -> None:
    path = REPO / "problems" / "manifest.json"
    document = read_manifest(path)
    entries = read_entries(path)
    rewritten = {**document, "problems": {key: entry.to_json() for key, entry in entries.items()}}
    assert dumps(rewritten) == path.read_text(encoding="utf-8")
    matmul = entries["level1/1_Square_matrix_multiplication_"]
    assert (matmul.level, matmul.problem_id, matmul.compute_dtype()) == (1, 1, "float32")
    assert matmul.flops == 2 * 4096**3 and matmul.min_bytes == 3 * 4096 * 4096 * 4


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda e: e.update(key="level1/other"), 'key: expected the string "level1/1_Passes"'),
    (lambda e: e.pop("sha256"), "missing key 'sha256'"),
    (lambda e: e.update(level="1"), 'level: expected a level number, got "1"'),
    (lambda e: e.update(min_bytes=-1), "min_bytes: expected a byte count or null, got -1"),
    (lambda e: e.update(inputs=[1]), "inputs: expected a list of objects or null, got [1]"),
    (lambda e: e.update(measured={"gpu": {"eager_ms": 0, "sha256": "0" * 64}}),
     '.measured["gpu"].eager_ms: expected a positive number, got 0'),
])
def test_a_malformed_entry_is_refused_naming_the_file_and_the_json_path(tmp_path: Path, edit, expected) -> None:
    document = generate(load_catalogue(_tree(tmp_path / "problems", ["1_Passes.py"])))
    edit(document["problems"]["level1/1_Passes"])
    path = tmp_path / "manifest.json"
    path.write_text(dumps(document))
    with pytest.raises(ManifestError) as raised:
        read_entries(path)
    assert str(raised.value).startswith(f'{path}: $.problems["level1/1_Passes"]')
    assert expected in str(raised.value)


def test_the_manifest_verb_refuses_a_malformed_manifest_as_bad_input(tmp_path: Path, catalogue_cli) -> None:
    root = _tree(tmp_path / "problems", ["1_Passes.py"])
    (root / "manifest.json").write_text(json.dumps({"schema_version": 1, "problems": []}))
    result = catalogue_cli("manifest", "--check", "--problems-dir", str(root))
    assert result.exit_code == 2
    assert "$.problems: expected an object of problem key -> entry" in result.stderr
