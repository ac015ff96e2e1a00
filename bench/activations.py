"""The activation and transcendental cases: GELU (exact and tanh), SiLU, tanh, sigmoid and log
on float32, forward alone and forward + backward (``autograd.grad`` with a given output
gradient, so no ``.grad`` accumulation is timed). NumPy runs where it has the op (tanh, log),
its backward written out by hand."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import numpy as np

SIZES = (1_000, 1_000_000, 10_000_000)


def _ops(lib: Any) -> Dict[str, Callable[[Any], Any]]:
    F = lib.nn.functional
    return {
        "gelu": F.gelu,
        "gelu(tanh)": lambda t: F.gelu(t, approximate="tanh"),
        "silu": F.silu,
        "tanh": lib.tanh,
        "sigmoid": lib.sigmoid,
        "log": lib.log,
    }


def _numpy_ops() -> Dict[str, Tuple[Callable[[Any], Any], Callable[[Any, Any], Any]]]:
    """Forward, and forward + hand-written backward (returns the input gradient)."""

    def tanh_fwd_bwd(x: Any, g: Any) -> Any:
        y = np.tanh(x)
        return g * (1.0 - y * y)

    def log_fwd_bwd(x: Any, g: Any) -> Any:
        np.log(x)
        return g / x

    return {"tanh": (np.tanh, tanh_fwd_bwd), "log": (np.log, log_fwd_bwd)}


def cases(case_type: Any) -> List[Any]:
    """Cases built with the suite's ``Case`` class (passed in to keep one definition)."""
    import ferrotorch as ft

    try:
        import torch as pt
    except Exception:
        pt = None
    rng = np.random.default_rng(3)
    out = []
    for n in SIZES:
        normal = rng.standard_normal(n, dtype=np.float32) * 3
        positive = rng.uniform(1e-3, 100.0, n).astype(np.float32)
        g = rng.standard_normal(n, dtype=np.float32)
        libs = [("ferrotorch", ft)] + ([("pytorch", pt)] if pt else [])
        for name in _ops(ft):
            x = positive if name == "log" else normal
            fwd = case_type(f"{name} fwd {n:,} float32")
            both = case_type(f"{name} fwd+bwd {n:,} float32")
            for lib_name, lib in libs:
                f = _ops(lib)[name]
                t, tg = lib.from_numpy(x), lib.from_numpy(g)
                tr = lib.from_numpy(x.copy()).requires_grad_()
                fwd.fns[lib_name] = lambda f=f, t=t: f(t)
                both.fns[lib_name] = lambda f=f, tr=tr, tg=tg, lib=lib: lib.autograd.grad(f(tr), tr, tg)
            if name in _numpy_ops():
                nf, nfb = _numpy_ops()[name]
                fwd.fns["numpy"] = lambda nf=nf, x=x: nf(x)
                both.fns["numpy"] = lambda nfb=nfb, x=x, g=g: nfb(x, g)
            out += [fwd, both]
    return out
