"""Import a problem file as a fresh module object and build its Model and inputs, KernelBench style.

Shared by the catalogue checker, the manifest and the evaluation worker, so it stays generic: it runs
problem code (trusted, from the catalogue), never submission code.

Seeding follows KernelBench: `torch.manual_seed(seed)` before `get_init_inputs()` and the Model's
construction, and again before `get_inputs()`, so a kernel's `ModelNew` built after the same seed gets
the same weights. The model is used as constructed (training mode, as KernelBench does), so a problem
must not rely on `.eval()` to switch randomness off.

Reduced sizes: a problem may define `REDUCED_SIZES = {"batch_size": 16, ...}`, a dict from module-level
size constants to smaller values. `load_problem_module(path, reduced=True)` rebinds those globals after
the import, before anything calls `get_inputs()` / `get_init_inputs()`, which read them at call time.

Declared tolerances: a problem whose fp32 reference is itself not within the protocol's tolerance of a
float64 run (the catalogue check's `ill-conditioned` filter) may declare wider ones, e.g.
`TOLERANCES = {"float32": (1e-3, 1e-3)}` (atol, rtol per output dtype), with a comment giving the evidence.
They may only widen the protocol's, and being part of the file they are part of the problem's hash.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

REDUCED_SIZES_NAME = "REDUCED_SIZES"
TOLERANCES_NAME = "TOLERANCES"
INPUT_SCALES_NAME = "INPUT_SCALES"
REQUIRED_CALLABLES = ("Model", "get_inputs", "get_init_inputs")
_counter = itertools.count()


class ProblemModuleError(Exception):
    """The problem file cannot be used; `code` is the catalogue checker's reason code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def load_problem_module(path: Path | str, *, reduced: bool) -> ModuleType:
    """Execute `path` as a new module object (never cached in sys.modules, so each call is fresh).

    With `reduced`, REDUCED_SIZES is applied; a problem without a valid one raises ProblemModuleError.
    """
    path = Path(path)
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    name = f"_kb_problem_{digest}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ProblemModuleError("import-error", f"{path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # problem code may raise anything on import; report it as data
        message = f"importing {path.name} raised {type(exc).__name__}: {exc}"
        raise ProblemModuleError("import-error", message) from exc
    missing = [n for n in REQUIRED_CALLABLES if not callable(getattr(module, n, None))]
    if missing:
        raise ProblemModuleError("format", f"{path.name} defines no callable {', '.join(missing)}")
    if reduced:
        apply_reduced_sizes(module)
    return module


def reduced_sizes(module: ModuleType) -> dict[str, Any]:
    """The module's REDUCED_SIZES, checked: a dict naming existing module globals only."""
    name = REDUCED_SIZES_NAME
    sizes = getattr(module, name, None)
    if sizes is None:
        raise ProblemModuleError("reduced-sizes", f"defines no {name}; cannot run at reduced size")
    if not isinstance(sizes, dict) or not all(isinstance(k, str) for k in sizes):
        raise ProblemModuleError("reduced-sizes", f"{name} must be a dict from global names to values")
    unknown = sorted(k for k in sizes if k not in vars(module))
    if unknown:
        message = f"{name} names {', '.join(unknown)}, which the module does not define"
        raise ProblemModuleError("reduced-sizes", message)
    return sizes


def apply_reduced_sizes(module: ModuleType) -> None:
    """Rebind the module globals REDUCED_SIZES names (get_inputs/get_init_inputs read them at call time)."""
    for name, value in reduced_sizes(module).items():
        setattr(module, name, value)


def problem_input_scales(module: ModuleType, protocol: tuple[float, ...]) -> tuple[float, ...]:
    """The protocol's scaled input variants, unless the problem declares the ones its maths allows (a cumulative
    product overflows at x100; softmax saturates there): module-level INPUT_SCALES, documented in the problem."""
    return tuple(float(s) for s in getattr(module, INPUT_SCALES_NAME, protocol))


def problem_tolerances(module: ModuleType, protocol: dict[str, Any]) -> dict[str, Any]:
    """The protocol's `tolerances` (dtype name -> Tolerance) with the module's TOLERANCES applied, checked:
    known dtypes only, each an (atol, rtol) pair of numbers no tighter than the protocol's."""
    from validator.protocol import Tolerance

    name = TOLERANCES_NAME
    raw = getattr(module, name, None)
    if raw is None:
        return dict(protocol)
    if not isinstance(raw, dict):
        raise ProblemModuleError("format", f"{name} must be a dict from dtype names to (atol, rtol)")
    merged = dict(protocol)
    for dtype, pair in raw.items():
        if dtype not in protocol:
            raise ProblemModuleError("format", f"{name}[{dtype!r}]: expected one of {', '.join(sorted(protocol))}")
        ok = isinstance(pair, tuple | list) and len(pair) == 2
        ok = ok and all(isinstance(v, int | float) and not isinstance(v, bool) for v in pair)
        if not ok:
            raise ProblemModuleError("format", f"{name}[{dtype!r}] must be a pair (atol, rtol) of numbers")
        floor = protocol[dtype]
        atol, rtol = float(pair[0]), float(pair[1])
        if not (atol >= floor.atol and rtol >= floor.rtol):
            message = (f"{name}[{dtype!r}] = ({atol:g}, {rtol:g}) is tighter than the protocol's "
                       f"({floor.atol:g}, {floor.rtol:g}); a problem may only widen it")
            raise ProblemModuleError("format", message)
        merged[dtype] = Tolerance(atol, rtol)
    return merged


def to_device(value: Any, device: Any) -> Any:
    """Move tensors (also inside lists and tuples) to `device`; leave everything else as it is."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, list | tuple):
        return type(value)(to_device(v, device) for v in value)
    return value


@contextmanager
def _default_device(device: Any, enabled: bool) -> Iterator[None]:
    import torch

    if enabled:
        with torch.device(device):
            yield
    else:
        yield


def make_model(module: ModuleType, seed: int, device: Any, *, generate_on_device: bool = False) -> Any:
    """Seed, call get_init_inputs(), construct Model, move it to `device`.

    By default parameters are drawn on the CPU (KernelBench's way: identical weights on every device).
    `generate_on_device` constructs under `torch.device(device)` instead: far faster at full size, with
    values from that device's generator.
    """
    import torch

    torch.manual_seed(seed)
    with _default_device(device, generate_on_device):
        init_inputs = module.get_init_inputs()
        model = module.Model(*init_inputs)
    return model.to(device)


def make_inputs(module: ModuleType, seed: int, device: Any, *, generate_on_device: bool = False) -> list[Any]:
    """Seed, call get_inputs(), move its tensors to `device` (see make_model for `generate_on_device`)."""
    import torch

    torch.manual_seed(seed)
    with _default_device(device, generate_on_device):
        inputs = module.get_inputs()
    if not isinstance(inputs, list | tuple):
        raise ProblemModuleError("format", f"get_inputs() returned {type(inputs).__name__}; expected a list")
    return [to_device(v, device) for v in inputs]


def make_model_and_inputs(
    module: ModuleType, seed: int, device: Any, *, generate_on_device: bool = False
) -> tuple[Any, list[Any]]:
    """The reference Model and its forward inputs for one seed, on `device`."""
    model = make_model(module, seed, device, generate_on_device=generate_on_device)
    inputs = make_inputs(module, seed, device, generate_on_device=generate_on_device)
    return model, inputs
