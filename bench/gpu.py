"""The GPU rows: ferrotorch and PyTorch on the same CUDA device, side by side in one process.

Each case is timed for both libraries in alternation (so clock and thermal drift hit both), each
repeat running the op until ``--min-time`` has passed and then synchronizing; the table gives
the median over repeats, the throughput (TFLOP/s for matmul, GB/s of memory traffic for
elementwise) and the ratio ferrotorch / PyTorch of the times (below 1 means ferrotorch is
faster). Needs a GPU and PyTorch with CUDA; writes the rows as JSON with ``--json``.

    python -m bench.gpu [--repeats 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch as pt  # noqa: E402

import ferrotorch as ft  # noqa: E402
from bench import models  # noqa: E402

LIBS = {"ferrotorch": ft, "torch": pt}


def time_per_call(lib: Any, fn: Callable[[], object], min_time: float) -> float:
    """Seconds per call of ``fn`` with the device's queue drained before and after."""
    lib.cuda.synchronize()
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        if n % 4 == 0 or n < 4:
            lib.cuda.synchronize()
            el = time.perf_counter() - t0
            if el >= min_time:
                return el / n


def matmul_case(dtype: str, n: int) -> tuple:
    def build(lib: Any) -> Callable[[], object]:
        lib.manual_seed(0)
        a = lib.randn(n, n, device="cuda").to(getattr(lib, dtype))
        b = lib.randn(n, n, device="cuda").to(getattr(lib, dtype))
        return lambda: a @ b

    return f"matmul {dtype} {n}x{n}x{n}", build, ("TFLOP/s", 2.0 * n**3 / 1e12)


def elementwise_case(name: str, n: int, op: Callable[[Any, Any], Any], tensors: int) -> tuple:
    def build(lib: Any) -> Callable[[], object]:
        lib.manual_seed(0)
        a, b = lib.randn(n, device="cuda"), lib.randn(n, device="cuda")
        return lambda: op(a, b)

    return f"{name} float32 {n / 1e6:g}M", build, ("GB/s", tensors * 4.0 * n / 1e9)


def training_case(name: str, builder: Callable[..., Callable[[], None]]) -> tuple:
    return name, lambda lib: builder(lib, device="cuda"), ("steps/s", 1.0)


def cases() -> List[tuple]:
    rows = [
        matmul_case("float32", 4096),
        matmul_case("bfloat16", 8192),
        matmul_case("float16", 8192),
        elementwise_case("add", 16 * 2**20, lambda a, b: a + b, 3),
        elementwise_case("mul", 64 * 2**20, lambda a, b: a * b, 3),
        elementwise_case("relu", 16 * 2**20, lambda a, b: a.relu(), 2),
        elementwise_case("sum", 64 * 2**20, lambda a, b: a.sum(), 1),
    ]
    rows += [training_case(name, b) for name, b in models.BUILDERS.items()]
    return rows


def run(repeats: int, min_time: float, only: str) -> List[Dict[str, Any]]:
    out = []
    for name, build, (unit, work) in cases():
        if only and only not in name:
            continue
        fns, times = {}, {lib: [] for lib in LIBS}
        try:
            for lib_name, lib in LIBS.items():
                fns[lib_name] = build(lib)
                for _ in range(3):
                    fns[lib_name]()
            for _ in range(repeats):
                for lib_name, lib in LIBS.items():
                    times[lib_name].append(time_per_call(lib, fns[lib_name], min_time))
        except Exception as e:  # a missing CUDA op is a row, not the end of the table
            print(f"{name:44s} FAILED: {type(e).__name__}: {str(e)[:300]}", flush=True)
            out.append({"name": name, "error": f"{type(e).__name__}: {e}"})
            continue
        med = {k: statistics.median(v) for k, v in times.items()}
        row = {"name": name, "unit": unit, "median_s": med, "ratio": med["ferrotorch"] / med["torch"]}
        row["rate"] = {k: work / v for k, v in med.items()}
        out.append(row)
        print(
            f"{name:44s} ferrotorch {med['ferrotorch'] * 1e3:9.3f} ms ({row['rate']['ferrotorch']:9.1f} {unit})"
            f"  torch {med['torch'] * 1e3:9.3f} ms ({row['rate']['torch']:9.1f} {unit})  ratio {row['ratio']:.2f}",
            flush=True,
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    print(f"GPU: {pt.cuda.get_device_name()}; torch {pt.__version__}; ferrotorch {ft.__version__}", flush=True)
    rows = run(args.repeats, args.min_time, args.only)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": pt.cuda.get_device_name(), "torch": pt.__version__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
