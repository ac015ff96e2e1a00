"""Side-by-side benchmark suite: ferrotorch, PyTorch (when installed) and NumPy in one process.

Libraries alternate within each repeat (so machine noise hits all of them alike); each case
reports the median over repeats, and ratios ferrotorch / PyTorch and ferrotorch / NumPy
(below 1 means ferrotorch is faster). Results go to bench/results/<timestamp>.json.

    python bench/run.py            # every case
    python bench/run.py --quick    # per-op overhead and matmul only
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from typing import Callable, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import simd_env  # noqa: E402

# The libraries read their SIMD caps when they load, so --simd is applied before importing them.
simd_env.apply(simd_env.level_from_argv(sys.argv[1:]))

import numpy as np  # noqa: E402

import ferrotorch as ft  # noqa: E402

try:
    import torch as pt

    pt.set_num_threads(os.cpu_count() or 1)
except Exception:  # PyTorch is optional
    pt = None


SETTLE_S = 0.1


def timeit(fn: Callable[[], object], min_time: float = 0.05) -> float:
    """Seconds per call: calls in a loop until ``min_time`` has passed."""
    fn()
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        el = time.perf_counter() - t0
        if el >= min_time:
            return el / n


class Case:
    def __init__(self, name: str, unit: str = "us", flops: float = 0.0):
        self.name, self.unit, self.flops = name, unit, flops
        self.fns: Dict[str, Callable[[], object]] = {}


def overhead_cases() -> List[Case]:
    cases = []
    c = Case("add 1-element")
    a, b = ft.ones(1), ft.ones(1)
    c.fns["ferrotorch"] = lambda: a + b
    na, nb = np.ones(1, np.float32), np.ones(1, np.float32)
    c.fns["numpy"] = lambda: na + nb
    if pt:
        ta, tb = pt.ones(1), pt.ones(1)
        c.fns["pytorch"] = lambda: ta + tb
    cases.append(c)
    c = Case("add 1-element, requires_grad")
    g = ft.ones(1, requires_grad=True)
    c.fns["ferrotorch"] = lambda: g + b
    if pt:
        tg = pt.ones(1, requires_grad=True)
        c.fns["pytorch"] = lambda: tg + tb
    cases.append(c)
    c = Case("method call t.sum()")
    s = ft.ones(16)
    c.fns["ferrotorch"] = lambda: s.sum()
    ns = np.ones(16, np.float32)
    c.fns["numpy"] = lambda: ns.sum()
    if pt:
        ts = pt.ones(16)
        c.fns["pytorch"] = lambda: ts.sum()
    cases.append(c)
    c = Case("basic indexing t[1, 2:5]")
    m = ft.ones(8, 8)
    c.fns["ferrotorch"] = lambda: m[1, 2:5]
    nm = np.ones((8, 8), np.float32)
    c.fns["numpy"] = lambda: nm[1, 2:5]
    if pt:
        tm = pt.ones(8, 8)
        c.fns["pytorch"] = lambda: tm[1, 2:5]
    cases.append(c)
    c = Case("tensor([1., 2., 3., 4.])")
    lst = [1.0, 2.0, 3.0, 4.0]
    c.fns["ferrotorch"] = lambda: ft.tensor(lst)
    c.fns["numpy"] = lambda: np.array(lst, dtype=np.float32)
    if pt:
        c.fns["pytorch"] = lambda: pt.tensor(lst)
    cases.append(c)
    return cases


def matmul_cases() -> List[Case]:
    cases = []
    rng = np.random.default_rng(0)
    for n in (64, 256, 512, 1024, 2048):
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        c = Case(f"matmul {n}x{n} float32", unit="GFLOP/s", flops=2.0 * n**3)
        fa, fb = ft.from_numpy(a), ft.from_numpy(b)
        c.fns["ferrotorch"] = lambda fa=fa, fb=fb: fa @ fb
        c.fns["numpy"] = lambda a=a, b=b: a @ b
        if pt:
            ta, tb = pt.from_numpy(a), pt.from_numpy(b)
            c.fns["pytorch"] = lambda ta=ta, tb=tb: ta @ tb
        cases.append(c)
    a = rng.standard_normal((32, 128, 64), dtype=np.float32)
    b = rng.standard_normal((32, 64, 128), dtype=np.float32)
    c = Case("bmm (32,128,64)x(32,64,128)", unit="GFLOP/s", flops=2.0 * 32 * 128 * 64 * 128)
    fa, fb = ft.from_numpy(a), ft.from_numpy(b)
    c.fns["ferrotorch"] = lambda: fa @ fb
    c.fns["numpy"] = lambda: a @ b
    if pt:
        ta, tb = pt.from_numpy(a), pt.from_numpy(b)
        c.fns["pytorch"] = lambda: ta @ tb
    cases.append(c)
    return cases


def elementwise_cases() -> List[Case]:
    cases = []
    rng = np.random.default_rng(1)
    for n in (1_000, 1_000_000, 10_000_000):
        x = rng.standard_normal(n, dtype=np.float32)
        y = rng.standard_normal(n, dtype=np.float32)
        fx, fy = ft.from_numpy(x), ft.from_numpy(y)
        tx, ty = (pt.from_numpy(x), pt.from_numpy(y)) if pt else (None, None)
        for op in ("add", "mul", "exp", "gelu"):
            c = Case(f"{op} {n:,} float32")
            if op == "add":
                c.fns["ferrotorch"] = lambda fx=fx, fy=fy: fx + fy
                c.fns["numpy"] = lambda x=x, y=y: x + y
                if pt:
                    c.fns["pytorch"] = lambda tx=tx, ty=ty: tx + ty
            elif op == "mul":
                c.fns["ferrotorch"] = lambda fx=fx, fy=fy: fx * fy
                c.fns["numpy"] = lambda x=x, y=y: x * y
                if pt:
                    c.fns["pytorch"] = lambda tx=tx, ty=ty: tx * ty
            elif op == "exp":
                c.fns["ferrotorch"] = lambda fx=fx: fx.exp()
                c.fns["numpy"] = lambda x=x: np.exp(x)
                if pt:
                    c.fns["pytorch"] = lambda tx=tx: tx.exp()
            else:
                c.fns["ferrotorch"] = lambda fx=fx: ft.nn.functional.gelu(fx)
                if pt:
                    c.fns["pytorch"] = lambda tx=tx: pt.nn.functional.gelu(tx)
            cases.append(c)
    x = rng.standard_normal((4096, 1024), dtype=np.float32)
    fx = ft.from_numpy(x)
    tx = pt.from_numpy(x) if pt else None
    for op in ("sum", "softmax", "layer_norm"):
        c = Case(f"{op} last dim (4096, 1024)")
        if op == "sum":
            c.fns["ferrotorch"] = lambda: fx.sum(-1)
            c.fns["numpy"] = lambda: x.sum(-1)
            if pt:
                c.fns["pytorch"] = lambda: tx.sum(-1)
        elif op == "softmax":
            c.fns["ferrotorch"] = lambda: fx.softmax(-1)
            if pt:
                c.fns["pytorch"] = lambda: tx.softmax(-1)
        else:
            c.fns["ferrotorch"] = lambda: ft.nn.functional.layer_norm(fx, (1024,))
            if pt:
                c.fns["pytorch"] = lambda: pt.nn.functional.layer_norm(tx, (1024,))
        cases.append(c)
    return cases


def conv_cases() -> List[Case]:
    cases = []
    rng = np.random.default_rng(2)
    for hw in (28, 14):
        x = rng.standard_normal((64, 32, hw, hw), dtype=np.float32)
        w = rng.standard_normal((64, 32, 3, 3), dtype=np.float32) * 0.05
        fx, fw = ft.from_numpy(x), ft.from_numpy(w)
        c = Case(f"conv2d fwd 64x32x{hw}x{hw} -> 64, 3x3", unit="ms")
        c.fns["ferrotorch"] = lambda fx=fx, fw=fw: ft.nn.functional.conv2d(fx, fw, padding=1)
        if pt:
            tx, tw = pt.from_numpy(x), pt.from_numpy(w)
            c.fns["pytorch"] = lambda tx=tx, tw=tw: pt.nn.functional.conv2d(tx, tw, padding=1)
        cases.append(c)
        c = Case(f"conv2d fwd+bwd 64x32x{hw}x{hw} -> 64, 3x3", unit="ms")
        fxg, fwg = ft.from_numpy(x.copy()).requires_grad_(), ft.from_numpy(w.copy()).requires_grad_()
        c.fns["ferrotorch"] = lambda a=fxg, b=fwg: ft.nn.functional.conv2d(a, b, padding=1).sum().backward()
        if pt:
            txg, twg = pt.from_numpy(x.copy()).requires_grad_(), pt.from_numpy(w.copy()).requires_grad_()
            c.fns["pytorch"] = lambda a=txg, b=twg: pt.nn.functional.conv2d(a, b, padding=1).sum().backward()
        cases.append(c)
    return cases + resnet_conv_cases()


# ResNet-18/50 convolutions at batch 16: (in channels, size, out channels, kernel, stride,
# groups), padding kernel // 2; the last is a depthwise 3x3 as in MobileNet.
RESNET_CONVS = [
    (64, 56, 64, 3, 1, 1),
    (128, 28, 128, 3, 1, 1),
    (256, 14, 256, 3, 1, 1),
    (512, 7, 512, 3, 1, 1),
    (64, 56, 128, 3, 2, 1),
    (256, 14, 512, 3, 2, 1),
    (64, 56, 256, 1, 1, 1),
    (256, 56, 64, 1, 1, 1),
    (512, 28, 128, 1, 1, 1),
    (2048, 7, 512, 1, 1, 1),
    (256, 56, 512, 1, 2, 1),
    (128, 28, 128, 3, 1, 128),
]


def resnet_conv_cases(batch: int = 16) -> List[Case]:
    """Forward, and forward + both gradients, of the ResNet layer shapes."""
    cases = []
    rng = np.random.default_rng(3)
    for c_in, hw, c_out, k, stride, groups in RESNET_CONVS:
        x = rng.standard_normal((batch, c_in, hw, hw), dtype=np.float32)
        w = rng.standard_normal((c_out, c_in // groups, k, k), dtype=np.float32) * 0.05
        opts = dict(stride=stride, padding=k // 2, groups=groups)
        shape = f"{batch}x{c_in}x{hw}x{hw} -> {c_out}, {k}x{k}" + (f" s{stride}" if stride > 1 else "") + (f" g{groups}" if groups > 1 else "")
        for mode in ("fwd", "fwd+bwd"):
            c = Case(f"conv2d {mode} {shape}", unit="ms")
            for lib, m in (("ferrotorch", ft), ("pytorch", pt)):
                if m is None:
                    continue
                tx, tw = m.from_numpy(x.copy()), m.from_numpy(w.copy())
                if mode == "fwd":
                    c.fns[lib] = lambda m=m, tx=tx, tw=tw, opts=opts: m.nn.functional.conv2d(tx, tw, **opts)
                else:
                    tx.requires_grad_()
                    tw.requires_grad_()
                    c.fns[lib] = lambda m=m, tx=tx, tw=tw, opts=opts: m.nn.functional.conv2d(tx, tw, **opts).sum().backward()
            cases.append(c)
    return cases


def training_cases() -> List[Case]:
    from bench import models

    cases = []
    for name, builder in models.BUILDERS.items():
        c = Case(f"train step: {name}", unit="ms")
        c.fns["ferrotorch"] = builder(ft)
        if pt:
            c.fns["pytorch"] = builder(pt)
        cases.append(c)
    return cases


def large_cases() -> List[Case]:
    """ResNet-18 and GPT-d384 training steps (the GPT also through ``compile``), digits-CNN
    inference latency at batch 1 and causal SDPA forward + backward at T = 256 and 1024."""
    from functools import partial

    from bench import models_large as ml

    builders = {
        **{f"train step: {name}": b for name, b in ml.TRAIN_BUILDERS.items()},
        "train step: GPT d384 as above, lib.compile(model)": ml.gpt_d384_compiled,
        "inference: digits CNN, batch 1, eval, no_grad": ml.cnn_infer,
        **{f"SDPA fwd+bwd causal, (4, 6, {t}, 64) float32": partial(ml.sdpa, t=t) for t in (256, 1024)},
    }
    cases = []
    for name, builder in builders.items():
        c = Case(name, unit="ms")
        for lib, m in (("ferrotorch", ft), ("pytorch", pt)):
            if m is not None:
                c.fns[lib] = builder(m)
        steps = list(c.fns.values())
        # Both libraries must build the same model, and train it to finite losses.
        if len({s.n_params for s in steps}) > 1:
            print(f"warning: {name}: parameter counts differ: {[s.n_params for s in steps]}", file=sys.stderr)
        for lib, s in c.fns.items():
            if not all(np.isfinite(s.losses)):
                print(f"warning: {name}: {lib} gave non-finite losses {s.losses}", file=sys.stderr)
        cases.append(c)
    return cases


def loader_cases() -> List[Case]:
    from bench import loader

    cases = []
    for workers in (0, 2):
        c = Case(f"DataLoader pass ({loader.N_ITEMS // loader.BATCH} batches), {workers} workers", unit="ms")
        c.fns["ferrotorch"] = loader.make_pass(ft, workers)
        if pt:
            c.fns["pytorch"] = loader.make_pass(pt, workers)
        cases.append(c)
    return cases


def activation_cases() -> List[Case]:
    from bench import activations

    return activations.cases(Case)


def run(cases: List[Case], repeats: int) -> List[dict]:
    rows = []
    for case in cases:
        samples: Dict[str, List[float]] = {k: [] for k in case.fns}
        for _ in range(repeats):
            for lib, fn in case.fns.items():
                # Each library's pool threads spin for a while after a call (OpenBLAS's the
                # longest): let them sleep again so they do not steal the next one's cores.
                time.sleep(SETTLE_S)
                samples[lib].append(timeit(fn))
        med = {lib: statistics.median(v) for lib, v in samples.items()}
        row = {"case": case.name, "unit": case.unit, "median_s": med}
        if case.flops:
            row["gflops"] = {lib: case.flops / t / 1e9 for lib, t in med.items()}
        for other in ("pytorch", "numpy"):
            if other in med:
                row[f"ratio_vs_{other}"] = med["ferrotorch"] / med[other]
        rows.append(row)
        show(row)
    return rows


def fmt(row: dict, lib: str) -> str:
    if lib not in row["median_s"]:
        return "-"
    if row["unit"] == "GFLOP/s":
        return f"{row['gflops'][lib]:.1f}"
    t = row["median_s"][lib]
    return f"{t * 1e3:.2f} ms" if row["unit"] == "ms" else f"{t * 1e6:.2f} us"


def show(row: dict) -> None:
    r_pt = f"{row['ratio_vs_pytorch']:.2f}" if "ratio_vs_pytorch" in row else "-"
    r_np = f"{row['ratio_vs_numpy']:.2f}" if "ratio_vs_numpy" in row else "-"
    print(f"| {row['case']:<42} | {fmt(row, 'ferrotorch'):>12} | {fmt(row, 'pytorch'):>12} | {fmt(row, 'numpy'):>12} | {r_pt:>6} | {r_np:>6} |", flush=True)


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description="ferrotorch vs PyTorch vs NumPy")
    ap.add_argument("--quick", action="store_true", help="per-op overhead and matmul only")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated groups: overhead,matmul,elementwise,activations,conv,training,large,loader,memory,distributed")
    ap.add_argument("--simd", choices=simd_env.LEVELS, help="cap every library at this SIMD level (read from the command line before the imports)")
    args = ap.parse_args(argv)
    if args.simd and os.environ.get("FERROTORCH_SIMD") != args.simd:
        ap.error("--simd must be on the command line: the libraries read it when imported")
    groups = {"overhead": overhead_cases, "matmul": matmul_cases, "elementwise": elementwise_cases, "activations": activation_cases, "conv": conv_cases, "training": training_cases, "large": large_cases, "loader": loader_cases, "memory": list, "distributed": list}
    chosen = args.only.split(",") if args.only else (["overhead", "matmul"] if args.quick else list(groups))
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; python {platform.python_version()}; numpy {np.__version__}; pytorch {pt.__version__ if pt else 'not installed'}; simd: {simd_env.describe()}")
    print("| case | ferrotorch | pytorch | numpy | ft/pt | ft/np |")
    print("|---|---|---|---|---|---|")
    rows = []
    for g in chosen:
        if g not in ("memory", "distributed"):
            rows += run(groups[g](), args.repeats)
    if "memory" in chosen:
        from bench import peak_rss

        libs = ["ferrotorch"] + (["torch"] if pt else [])
        print(f"\n| peak RSS of {peak_rss.STEPS} training steps, one process each | " + " | ".join(libs) + " |")
        print("|---|" + "---|" * len(libs))
        rows += peak_rss.rows(libs)
    if "distributed" in chosen:
        from bench import distributed

        rows += distributed.rows()
    os.makedirs(os.path.join(os.path.dirname(__file__), "results"), exist_ok=True)
    path = os.path.join(os.path.dirname(__file__), "results", time.strftime("%Y%m%d-%H%M%S") + ".json")
    with open(path, "w") as f:
        json.dump({"machine": platform.platform(), "cpus": os.cpu_count(), "rows": rows}, f, indent=1)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
