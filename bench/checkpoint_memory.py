"""Peak memory of one training step of a deep network with large activations, with and
without activation checkpointing (``torch.utils.checkpoint.checkpoint_sequential``), for
ferrotorch and PyTorch. Each measurement runs in a fresh process (a process's peak never goes
down) and reports the peak resident size added by the step (VmHWM minus the resident size
once the model and input exist).

    python bench/checkpoint_memory.py [--depth 8] [--rows 2048] [--width 4608] [--segments 4]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Dict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _rss_now_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def measure_in_this_process(lib_name: str, mode: str, depth: int, rows: int, width: int, segments: int) -> Dict[str, float]:
    """One forward and backward; ``mode`` is plain, nonreentrant or reentrant."""
    lib = __import__(lib_name)

    class ScaleTanh(lib.nn.Module):
        # Cheap arithmetic, big activations: what checkpointing is for.
        def __init__(self) -> None:
            super().__init__()
            self.w = lib.nn.Parameter(lib.ones(width) * 0.9)

        def forward(self, x):  # type: ignore[no-untyped-def]
            return (x * self.w).tanh()

    lib.manual_seed(0)
    model = lib.nn.Sequential(*[ScaleTanh() for _ in range(depth)])
    x = lib.randn(rows, width).requires_grad_()
    before = _rss_now_mib()
    if mode == "plain":
        out = model(x)
    else:
        ck = __import__(f"{lib_name}.utils.checkpoint", fromlist=["checkpoint_sequential"])
        out = ck.checkpoint_sequential(model, segments, x, use_reentrant=(mode == "reentrant"))
    out.sum().backward()
    grad_sum = float(sum(p.grad.sum() for p in model.parameters()))
    return {"step_peak_mib": _peak_rss_mib() - before, "grad_sum": grad_sum}


def measure(lib_name: str, mode: str, **sizes: int) -> Dict[str, float]:
    code = (
        f"import json, sys; sys.path.insert(0, {ROOT!r}); sys.path.insert(0, {os.path.join(ROOT, 'python')!r}); "
        "from bench.checkpoint_memory import measure_in_this_process as m; "
        f"print(json.dumps(m({lib_name!r}, {mode!r}, **{sizes!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depth", type=int, default=8)
    p.add_argument("--rows", type=int, default=2048)
    p.add_argument("--width", type=int, default=4608)
    p.add_argument("--segments", type=int, default=4)
    a = p.parse_args()
    sizes = {"depth": a.depth, "rows": a.rows, "width": a.width, "segments": a.segments}
    act_mib = a.rows * a.width * 4 / 2**20
    print(f"depth {a.depth}, activation {a.rows}x{a.width} float32 = {act_mib:.0f} MiB, {a.segments} segments")
    print("| library | plain | checkpointed (use_reentrant=False) | checkpointed (use_reentrant=True) |")
    print("|---|---|---|---|")
    for lib in ("ferrotorch", "torch"):
        try:
            cells = [measure(lib, mode, **sizes) for mode in ("plain", "nonreentrant", "reentrant")]
        except (subprocess.CalledProcessError, ImportError) as e:  # PyTorch may be absent
            print(f"| {lib} | not measured: {type(e).__name__} | | |")
            continue
        print(f"| {lib} | " + " | ".join(f"+{c['step_peak_mib']:.0f} MiB" for c in cells) + " |", flush=True)


if __name__ == "__main__":
    main()
