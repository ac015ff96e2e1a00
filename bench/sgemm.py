"""float32 matmul: ferrotorch's AVX-512 and AVX2 tiles, the gemm-crate path they replace, and PyTorch.

The four run alternately within each repeat, so machine noise hits them alike; the table
shows medians (microseconds per product) and GFLOP/s. The gemm crate runs when the SIMD
level is lowered to baseline (it picks its own AVX2 kernels); PyTorch runs at its default
level (``python -m bench --simd avx2`` compares at AVX2 for every library).

    python bench/sgemm.py [--repeats 7] [--threads 2] [--only square]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
import torch as pt

import ferrotorch as ft

try:  # python -m bench.sgemm, or python bench/sgemm.py
    from bench.run import timeit
except ImportError:
    from run import timeit  # type: ignore[no-redef]

# (name, shape of a, shape of b, transpose a's last two dims before the product)
SHAPES = [
    ("linear fwd 128x784 @ 784x512", (128, 784), (512, 784), "bt"),
    ("linear dX  128x512 @ 512x784", (128, 512), (512, 784), ""),
    ("linear dW  (128x512)^T @ 128x784", (128, 512), (128, 784), "at"),
    ("square 256", (256, 256), (256, 256), ""),
    ("square 512", (512, 512), (512, 512), ""),
    ("square 1024", (1024, 1024), (1024, 1024), ""),
    ("square 2048", (2048, 2048), (2048, 2048), ""),
    ("bmm 32x(128x64 @ 64x128)", (32, 128, 64), (32, 64, 128), ""),
    ("bmm 64x(64x32 @ 32x64)", (64, 64, 32), (64, 32, 64), ""),
]


def operands(lib, a_np, b_np, mode):
    a, b = lib.from_numpy(a_np.copy()), lib.from_numpy(b_np.copy())
    if mode == "bt":
        b = b.transpose(-1, -2)
    if mode == "at":
        a = a.transpose(-1, -2)
    return a, b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--only", default="", help="substring of the shape names to run")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    pt.set_num_threads(args.threads)
    ft.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    keys = ("avx512", "avx2", "gemm", "torch")
    print(f"{'shape':36} " + " ".join(f"{key + ' us':>10}" for key in keys) + " " + " ".join(f"{key + ' GF':>10}" for key in keys))
    for name, sa, sb, mode in SHAPES:
        if args.only and args.only not in name:
            continue
        a_np = rng.standard_normal(sa, dtype=np.float32)
        b_np = rng.standard_normal(sb, dtype=np.float32)
        fa, fb = operands(ft, a_np, b_np, mode)
        ta, tb = operands(pt, a_np, b_np, mode)
        m, k = fa.shape[-2], fa.shape[-1]
        n = fb.shape[-1]
        batch = int(np.prod(fa.shape[:-2])) if fa.ndim > 2 else 1
        flops = 2.0 * batch * m * n * k
        times: dict = {key: [] for key in keys}
        for _ in range(args.repeats):
            for key, level in (("avx512", "avx512"), ("avx2", "avx2"), ("gemm", "baseline")):
                ft._core._set_simd_level(level)
                times[key].append(timeit(lambda: fa @ fb, args.min_time))
            times["torch"].append(timeit(lambda: ta @ tb, args.min_time))
        ft._core._set_simd_level("avx512")
        med = {key: statistics.median(v) for key, v in times.items()}
        us = " ".join(f"{med[key] * 1e6:10.1f}" for key in keys)
        gf = " ".join(f"{flops / med[key] / 1e9:10.1f}" for key in keys)
        print(f"{name:36} {us} {gf}", flush=True)


if __name__ == "__main__":
    main()
