"""Import a problem file as a fresh module object and build its Model and inputs, KernelBench style.

Shared by the catalogue checker, the manifest and the evaluation worker, so it stays generic: it runs
problem code (trusted, from the catalogue), never submission code.

Seeding follows KernelBench: the seed before `get_init_inputs()` and the Model's construction, and again
before `get_inputs()`, so a kernel's `ModelNew` built after the same seed gets the same weights. It sets the
generators `torch.manual_seed` sets that a problem can draw from, to the same values (`seed_generators`). The
model is used as constructed (training mode, as KernelBench does), so a problem must not rely on `.eval()` to
switch randomness off.

What the board adds per problem (reduced sizes, input scales, tolerances) is not in the file, which is
upstream's byte for byte, but in the catalogue's sidecar (validator.catalogue.overlay), found from the
file's path:

- `load_problem_module(path, reduced=True)` rebinds the globals the overlay's `reduced_sizes` names after
  the import, before anything calls `get_inputs()` / `get_init_inputs()`, which read them at call time.
- `problem_input_scales` / `problem_tolerances` give the protocol's values unless the overlay declares the
  ones an ill-conditioned problem needs (tolerances may only widen the protocol's).
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

from validator.catalogue.overlay import Overlay, OverlayError, overlay_for

REQUIRED_CALLABLES = ("Model", "get_inputs", "get_init_inputs")
_counter = itertools.count()


class ProblemModuleError(Exception):
    """The problem file cannot be used; `code` is the catalogue checker's reason code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def load_problem_module(path: Path | str, *, reduced: bool, sizes: dict[str, Any] | None = None) -> ModuleType:
    """Execute `path` as a new module object (never cached in sys.modules, so each call is fresh).

    With `reduced`, the overlay's reduced_sizes are applied (or `sizes`, for a copy of the file away from its
    overlay, as the runner's is); without valid ones it raises ProblemModuleError.
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
        apply_reduced_sizes(module, sizes)
    return module


def module_overlay(module: ModuleType) -> Overlay:
    """The overlay of the problem file `module` was loaded from (ProblemModuleError if the sidecar is broken)."""
    try:
        return overlay_for(Path(module.__file__ or ""))
    except OverlayError as exc:
        raise ProblemModuleError("overlay", str(exc)) from exc


def reduced_sizes(module: ModuleType, sizes: dict[str, Any] | None = None) -> dict[str, Any]:
    """The overlay's reduced sizes for `module` (or `sizes`), checked: existing module globals only."""
    sizes = module_overlay(module).reduced_sizes if sizes is None else sizes
    if not sizes:
        raise ProblemModuleError("reduced-sizes", "the overlay gives no reduced_sizes; cannot run at reduced size")
    unknown = sorted(k for k in sizes if k not in vars(module))
    if unknown:
        message = f"the overlay's reduced_sizes names {', '.join(unknown)}, which the module does not define"
        raise ProblemModuleError("reduced-sizes", message)
    return sizes


def apply_reduced_sizes(module: ModuleType, sizes: dict[str, Any] | None = None) -> None:
    """Rebind the module globals reduced_sizes names (get_inputs/get_init_inputs read them at call time)."""
    for name, value in reduced_sizes(module, sizes).items():
        setattr(module, name, value)


def problem_input_scales(module: ModuleType, protocol: tuple[float, ...]) -> tuple[float, ...]:
    """The protocol's scaled input variants, unless the overlay declares the ones the problem's maths allows (a
    cumulative product overflows at x100; softmax saturates there)."""
    scales = module_overlay(module).input_scales
    return scales if scales is not None else tuple(float(s) for s in protocol)


def problem_hidden_variants(module: ModuleType, protocol: tuple[str, ...]) -> tuple[str, ...]:
    """The hidden input variants, unless the overlay declares the ones the problem's input structure allows (a
    fresh standard-normal draw of a triangular matrix is not triangular)."""
    hidden = module_overlay(module).hidden_variants
    return hidden if hidden is not None else protocol


def problem_tolerances(module: ModuleType, protocol: dict[str, Any]) -> dict[str, Any]:
    """The protocol's `tolerances` (dtype name -> Tolerance) with the overlay's applied, checked: known dtypes
    only, none tighter than the protocol's."""
    from validator.protocol import Tolerance

    merged = dict(protocol)
    for dtype, (atol, rtol) in module_overlay(module).tolerances.items():
        if dtype not in protocol:
            message = f"overlay tolerances[{dtype!r}]: expected one of {', '.join(sorted(protocol))}"
            raise ProblemModuleError("format", message)
        floor = protocol[dtype]
        if not (atol >= floor.atol and rtol >= floor.rtol):
            message = (f"overlay tolerances[{dtype!r}] = ({atol:g}, {rtol:g}) is tighter than the protocol's "
                       f"({floor.atol:g}, {floor.rtol:g}); the overlay may only widen it")
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


def seed_generators(seed: int) -> None:
    """What `torch.manual_seed(seed)` does to the generators a problem draws from, the CPU's and every CUDA
    device's, and nothing else. `torch.manual_seed` also seeds backends never initialised here (XPU, MTIA; CUDA
    too, in a process without it), each by queueing the call with a formatted copy of the call stack, which stats
    every frame's source file: on the CPU 130 us a seed instead of 1 us, and 29 stat calls, inside every timed
    call's input making (the runner makes each call's inputs in the judge's span, `Runner.make`), on both sides of
    the timing bound, where its jitter is noise the bound must allow for."""
    import torch

    torch.default_generator.manual_seed(seed)
    if torch.cuda.is_available():  # queued until CUDA starts, where it has not yet
        torch.cuda.manual_seed_all(seed)


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
    seed_generators(seed)
    with _default_device(device, generate_on_device):
        init_inputs = module.get_init_inputs()
        model = module.Model(*init_inputs)
    return model.to(device)


def make_inputs(module: ModuleType, seed: int, device: Any, *, generate_on_device: bool = False) -> list[Any]:
    """Seed, call get_inputs(), move its tensors to `device` (see make_model for `generate_on_device`)."""
    seed_generators(seed)
    with _default_device(device, generate_on_device):
        inputs = module.get_inputs()
    if not isinstance(inputs, list | tuple):
        raise ProblemModuleError("format", f"get_inputs() returned {type(inputs).__name__}; expected a list")
    return [to_device(v, device) for v in inputs]

