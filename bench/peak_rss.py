"""Peak memory of the training steps: each model trains for a few steps in a fresh process of
its own per library, which reports its peak resident set size and the part added by the
steps themselves (peak minus the resident size once the model is built, before the first
step). A separate process per measurement, because a process's peak never goes down."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from typing import Any, Callable, Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS = 5


def _rss_now_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_rss_mib() -> float:
    # VmHWM, not ru_maxrss: after fork + exec, ru_maxrss still carries the parent's peak.
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def builders() -> Dict[str, Callable[[Any], Callable[[], object]]]:
    """The measured training steps: bench/models.py's, then bench/models_large.py's (built
    without their warm-up step, so the first step's allocations count as for the others)."""
    from bench import models, models_large

    large = {name: functools.partial(b, warmup=0) for name, b in models_large.TRAIN_BUILDERS.items()}
    return {**models.BUILDERS, **large}


def measure_in_this_process(lib_name: str, model: str) -> Dict[str, float]:
    """Builds `model` with `lib_name` (ferrotorch or torch), runs STEPS steps, returns MiB."""
    sys.path.insert(0, ROOT)
    lib = __import__(lib_name)

    step = builders()[model](lib)
    before = _rss_now_mib()
    for _ in range(STEPS):
        step()
    peak = _peak_rss_mib()
    return {"peak_mib": peak, "steps_mib": max(peak - before, 0.0)}


def measure(lib_name: str, model: str) -> Dict[str, float]:
    code = f"import json, sys; sys.path.insert(0, {ROOT!r}); from bench.peak_rss import measure_in_this_process as m; print(json.dumps(m({lib_name!r}, {model!r})))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def rows(libs: List[str]) -> List[dict]:
    """One row per model: peak and step-added MiB per library."""
    result = []
    for model in builders():
        row = {"case": f"peak RSS: {model}", "mib": {lib: measure(lib, model) for lib in libs}}
        result.append(row)
        cells = " | ".join(f"{row['mib'][lib]['peak_mib']:.0f} MiB (steps +{row['mib'][lib]['steps_mib']:.0f})" for lib in libs)
        print(f"| {row['case']} | {cells} |", flush=True)
    return result
