"""torch.compile (eager here, PyTorch's wrapper objects and checks), torch._dynamo /
torch.compiler names, float32 matmul precision, deterministic algorithms and the
torch.backends switches, against PyTorch."""

from __future__ import annotations

import warnings
from typing import Any, Callable, List, Tuple

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft

pytestmark = needs_torch


def _outcome(fn: Callable[[], Any]) -> Tuple[Any, List[Tuple[str, str]]]:
    """What ``fn`` returns (or raises: class name and message) and the warnings it gives."""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            r = fn()
        except Exception as err:  # noqa: BLE001 - class and message are compared
            r = (type(err).__name__, str(err))
    return r, [(w.category.__name__, str(w.message).split(" (Triggered internally")[0]) for w in ws]


def _same(fn: Callable[[Any], Any], check_warnings: bool = True) -> None:
    ours, theirs = _outcome(lambda: fn(torch)), _outcome(lambda: fn(pt))
    assert str(ours[0]) == str(theirs[0])
    if check_warnings:
        assert ours[1] == theirs[1]


# ---- torch.compile ----


def _net(lib: Any) -> Any:
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))


COMPILE_KWARGS = [
    {},
    {"backend": "eager"},
    {"mode": "max-autotune"},
    {"mode": "reduce-overhead", "fullgraph": True},
    {"dynamic": True, "options": {"triton.cudagraphs": False}},
    {"backend": "inductor", "mode": "default"},
]


@pytest.mark.parametrize("kwargs", COMPILE_KWARGS, ids=[str(k) for k in COMPILE_KWARGS])
def test_compiled_module_runs_eagerly_with_pytorchs_structure(kwargs: Any) -> None:
    theirs, ours = _net(pt), _net(torch)
    for q, p in zip(ours.state_dict().values(), theirs.state_dict().values()):
        q.copy_(to_ft(p))
    c_pt = pt.compile(theirs, **{**kwargs, "backend": "eager"})
    c_ft = torch.compile(ours, **kwargs)
    assert type(c_ft).__name__ == type(c_pt).__name__ == "OptimizedModule"
    assert c_ft._orig_mod is ours
    assert list(c_ft.state_dict()) == list(c_pt.state_dict())
    assert [n for n, _ in c_ft.named_parameters()] == [n for n, _ in c_pt.named_parameters()]
    assert repr(c_ft) == repr(c_pt)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    assert_close(c_ft(torch.from_numpy(x)), c_pt(pt.from_numpy(x)), rtol=1e-5, atol=1e-5)
    c_ft.eval()
    c_pt.eval()
    assert ours.training is False and c_ft.training is False
    assert_close(c_ft(torch.from_numpy(x)), c_pt(pt.from_numpy(x)), rtol=1e-5, atol=1e-5)
    assert_close(c_ft(torch.from_numpy(x)), ours(torch.from_numpy(x)))


def test_compiled_module_delegates_attributes_and_loads_prefixed_state() -> None:
    m = torch.nn.Linear(2, 3)
    c = torch.compile(m)
    assert c.weight is m.weight and c.in_features == 2
    other = torch.compile(torch.nn.Linear(2, 3))
    other.load_state_dict(c.state_dict())
    assert torch.equal(other._orig_mod.weight, m.weight)
    sd = pt.compile(pt.nn.Linear(2, 3), backend="eager").state_dict()
    c.load_state_dict({k: to_ft(v) for k, v in sd.items()})
    assert_close(m.weight, sd["_orig_mod.weight"])
    loss = c(torch.ones(4, 2)).sum()
    loss.backward()
    assert m.weight.grad is not None


def test_compiled_function_and_decorators() -> None:
    def f(x: Any, y: Any = 1.0) -> Any:
        return x * 2 + y

    g = torch.compile(f)
    assert g.__name__ == "f" and g.__wrapped__ is f
    assert g(torch.ones(2), y=3.0).tolist() == [5.0, 5.0]

    @torch.compile
    def h(x: Any) -> Any:
        return x.exp()

    @torch.compile(mode="max-autotune-no-cudagraphs", dynamic=False)
    def k(x: Any) -> Any:
        return x.sum()

    assert h(torch.zeros(1)).tolist() == [1.0] and k(torch.ones(3)).item() == 3.0
    assert torch.compile(f, disable=True) is f
    m = torch.nn.ReLU()
    assert torch.compile(m, disable=True) is m
    assert torch.compile(backend="eager")(m).__class__.__name__ == "OptimizedModule"
    assert torch.compile(f, backend=lambda gm, example_inputs: gm)(torch.ones(1)).tolist() == [3.0]


COMPILE_ERRORS = [
    ("mode_and_options", lambda L: L.compile(lambda x: x, mode="default", options={})),
    ("bad_mode", lambda L: L.compile(lambda x: x, mode="fast")),
    ("bad_backend", lambda L: L.compile(lambda x: x, backend="nope")),
    ("bad_backend_class", lambda L: isinstance(_outcome_exc(lambda: L.compile(lambda x: x, backend="nope")), RuntimeError)),
    ("not_callable", lambda L: L.compile(5)),
    ("list_backends", lambda L: L._dynamo.list_backends()),
    ("compiler_list_backends", lambda L: L.compiler.list_backends()),
    ("reset", lambda L: (L._dynamo.reset(), L.compiler.reset())),
    ("is_compiling", lambda L: (L.compiler.is_compiling(), L.compiler.is_dynamo_compiling(), L._dynamo.is_compiling())),
    ("config_defaults", lambda L: (L._dynamo.config.suppress_errors, L._dynamo.config.cache_size_limit, L._dynamo.config.verbose)),
    ("config_unknown_get", lambda L: L._dynamo.config.no_such_setting),
    ("config_unknown_set", lambda L: setattr(L._dynamo.config, "no_such_setting", 1)),
    ("disable_decorator", lambda L: L._dynamo.disable(lambda: 7)()),
]


def _outcome_exc(fn: Callable[[], Any]) -> Any:
    try:
        fn()
    except Exception as err:  # noqa: BLE001 - the exception object is the result
        return err
    return None


@pytest.mark.parametrize("case", COMPILE_ERRORS, ids=[c[0] for c in COMPILE_ERRORS])
def test_compile_checks_and_dynamo_names_match_pytorch(case: Any) -> None:
    _same(case[1])


def test_dynamo_config_is_settable() -> None:
    for lib in (pt, torch):
        old = lib._dynamo.config.suppress_errors
        lib._dynamo.config.suppress_errors = True
        assert lib._dynamo.config.suppress_errors is True
        lib._dynamo.config.suppress_errors = old


# ---- float32 matmul precision ----


PRECISION = [
    ("get_default", lambda L: L.get_float32_matmul_precision()),
    ("high", lambda L: (L.set_float32_matmul_precision("high"), L.get_float32_matmul_precision(), L.backends.cuda.matmul.allow_tf32)),
    ("medium", lambda L: (L.set_float32_matmul_precision("medium"), L.get_float32_matmul_precision(), L.backends.cuda.matmul.allow_tf32)),
    ("bad_value_warns", lambda L: (L.set_float32_matmul_precision("fastest"), L.get_float32_matmul_precision())),
    ("allow_tf32_sets_high", lambda L: (setattr(L.backends.cuda.matmul, "allow_tf32", True), L.get_float32_matmul_precision())),
    ("allow_tf32_off", lambda L: (setattr(L.backends.cuda.matmul, "allow_tf32", False), L.get_float32_matmul_precision())),
]


@pytest.mark.parametrize("case", PRECISION, ids=[c[0] for c in PRECISION])
def test_matmul_precision_matches_pytorch(case: Any) -> None:
    try:
        _same(case[1])
    finally:
        pt.set_float32_matmul_precision("highest")
        torch.set_float32_matmul_precision("highest")


def test_matmul_results_do_not_depend_on_precision() -> None:
    a = torch.randn(8, 8)
    exact = a @ a
    torch.set_float32_matmul_precision("medium")
    try:
        assert torch.equal(a @ a, exact)
    finally:
        torch.set_float32_matmul_precision("highest")


# ---- deterministic algorithms ----


DETERMINISM = [
    ("defaults", lambda L: (L.are_deterministic_algorithms_enabled(), L.is_deterministic_algorithms_warn_only_enabled(), L.get_deterministic_debug_mode())),
    ("on", lambda L: (L.use_deterministic_algorithms(True), L.are_deterministic_algorithms_enabled(), L.get_deterministic_debug_mode())),
    ("warn_only", lambda L: (L.use_deterministic_algorithms(True, warn_only=True), L.is_deterministic_algorithms_warn_only_enabled(), L.get_deterministic_debug_mode())),
    ("off_clears_warn_only", lambda L: (L.use_deterministic_algorithms(True, warn_only=True), L.use_deterministic_algorithms(False), L.is_deterministic_algorithms_warn_only_enabled())),
    ("not_bool", lambda L: L.use_deterministic_algorithms("yes")),
    ("debug_mode_str", lambda L: (L.set_deterministic_debug_mode("warn"), L.are_deterministic_algorithms_enabled(), L.is_deterministic_algorithms_warn_only_enabled(), L.get_deterministic_debug_mode())),
    ("debug_mode_int", lambda L: (L.set_deterministic_debug_mode(2), L.get_deterministic_debug_mode(), L.is_deterministic_algorithms_warn_only_enabled())),
    ("debug_mode_bad_str", lambda L: L.set_deterministic_debug_mode("loud")),
    ("warn_always", lambda L: (L.is_warn_always_enabled(), L.set_warn_always(True), L.is_warn_always_enabled(), L.set_warn_always(False))),
]


@pytest.mark.parametrize("case", DETERMINISM, ids=[c[0] for c in DETERMINISM])
def test_deterministic_switches_match_pytorch(case: Any) -> None:
    try:
        _same(case[1])
    finally:
        for lib in (pt, torch):
            lib.use_deterministic_algorithms(False)


def test_threads() -> None:
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    assert torch.get_num_threads() == 1
    torch.set_num_threads(n)
    assert torch.get_num_threads() == n
    assert isinstance(torch.get_num_interop_threads(), int) and torch.get_num_interop_threads() > 0


# ---- torch.backends ----


def _cudnn_flags(L: Any) -> Any:
    c = L.backends.cudnn
    return (c.enabled, c.benchmark, c.deterministic, c.allow_tf32)


def _flags_context(L: Any) -> Any:
    c = L.backends.cudnn
    with c.flags(enabled=False, benchmark=True, deterministic=True, allow_tf32=False):
        inside = _cudnn_flags(L)
    return inside, _cudnn_flags(L)


def _set_and_restore(mod: Any, name: str, value: Any) -> Any:
    old = getattr(mod, name)
    try:
        setattr(mod, name, value)
        return getattr(mod, name)
    finally:
        setattr(mod, name, old)


BACKENDS = [
    ("cudnn_defaults", _cudnn_flags),
    ("cudnn_flags_context", _flags_context),
    ("cudnn_benchmark", lambda L: _set_and_restore(L.backends.cudnn, "benchmark", True)),
    ("cudnn_deterministic", lambda L: _set_and_restore(L.backends.cudnn, "deterministic", True)),
    ("cudnn_enabled_not_bool", lambda L: _set_and_restore(L.backends.cudnn, "enabled", 1)),
    ("cudnn_benchmark_not_bool", lambda L: _set_and_restore(L.backends.cudnn, "benchmark", 1)),
    ("cudnn_deterministic_not_bool", lambda L: _set_and_restore(L.backends.cudnn, "deterministic", 1)),
    ("cudnn_allow_tf32_not_bool", lambda L: _set_and_restore(L.backends.cudnn, "allow_tf32", 1)),
    ("mkldnn_defaults", lambda L: (L.backends.mkldnn.enabled, L.backends.mkldnn.deterministic)),
    ("mkldnn_flags_context", lambda L: _mkldnn_context(L)),
    ("mkldnn_not_bool", lambda L: _set_and_restore(L.backends.mkldnn, "enabled", 0)),
    ("cpu_capability", lambda L: L.backends.cpu.get_cpu_capability()),
    ("matmul_reduced_defaults", lambda L: (L.backends.cuda.matmul.allow_fp16_reduced_precision_reduction, L.backends.cuda.matmul.allow_bf16_reduced_precision_reduction)),
    ("matmul_reduced_set", lambda L: _set_and_restore(L.backends.cuda.matmul, "allow_fp16_reduced_precision_reduction", False)),
    ("matmul_reduced_not_bool", lambda L: _set_and_restore(L.backends.cuda.matmul, "allow_bf16_reduced_precision_reduction", 1)),
    ("matmul_allow_tf32_not_bool", lambda L: _set_and_restore(L.backends.cuda.matmul, "allow_tf32", 1)),
    ("matmul_unknown", lambda L: L.backends.cuda.matmul.allow_int8),
    ("mps", lambda L: (L.backends.mps.is_available(), L.backends.mps.is_built())),
]


def _mkldnn_context(L: Any) -> Any:
    m = L.backends.mkldnn
    with m.flags(enabled=False, deterministic=True):
        inside = (m.enabled, m.deterministic)
    return inside, (m.enabled, m.deterministic)


@pytest.mark.parametrize("case", BACKENDS, ids=[c[0] for c in BACKENDS])
def test_backend_switches_match_pytorch(case: Any) -> None:
    # PyTorch's oneDNN flags() warns about Intel GPUs it was built without.
    _same(case[1], check_warnings=not case[0].startswith("mkldnn_flags"))


def test_backend_modules_import_as_modules() -> None:
    import ferrotorch.backends.cudnn as cudnn
    import ferrotorch.backends.mkldnn as mkldnn

    cudnn.benchmark = True
    try:
        assert torch.backends.cudnn.benchmark is True and cudnn is torch.backends.cudnn
    finally:
        cudnn.benchmark = False
    assert mkldnn.enabled is True
    # No cuDNN, oneDNN, MKL or OpenMP behind ferrotorch's kernels.
    assert not cudnn.is_available() and cudnn.version() is None
    assert not mkldnn.is_available() and not torch.backends.mkl.is_available() and not torch.backends.openmp.is_available()
