"""Differential fuzzing against PyTorch: hypothesis draws cases (fuzz_strategies.py) over the op
table and many torch / Tensor / F calls; a worker process runs each on ferrotorch and PyTorch
(fuzz_worker.py) and every disagreement, panic, abort or hang is collected with the case that
reproduces it.

Default run: FERROTORCH_FUZZ_CASES cases (1500) from a fixed seed, no example database. Nightly:
    FERROTORCH_FUZZ_CASES=100000 python -m pytest -q tests/fuzz -p no:cacheprovider
(FERROTORCH_FUZZ_SEED=<int> draws a different stream of cases; FERROTORCH_FUZZ_OPS=a,b only
those ops; FERROTORCH_FUZZ_KNOWN=0 reports the known mismatches too.)"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List

import pytest

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]

from torch_oracle import needs_torch  # noqa: E402

hypothesis = pytest.importorskip("hypothesis")
from fuzz_known import KNOWN  # noqa: E402
from fuzz_runner import Worker  # noqa: E402
from fuzz_strategies import cases  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402

pytestmark = needs_torch

CASES = int(os.environ.get("FERROTORCH_FUZZ_CASES", "1500"))
SEED = os.environ.get("FERROTORCH_FUZZ_SEED")
# Reports kept per (op, kind of failure); the rest are counted.
MAX_REPORTS = int(os.environ.get("FERROTORCH_FUZZ_REPORTS", "40"))
# Every failing case is also appended here as it happens (long runs).
LOG = os.environ.get("FERROTORCH_FUZZ_LOG")


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


def _settings(n: int) -> Any:
    return settings(
        max_examples=n, derandomize=SEED is None, database=None, deadline=None, print_blob=False,
        suppress_health_check=list(HealthCheck), phases=[hypothesis.Phase.generate],
    )


def test_worker_reports_crash_and_hang(worker, monkeypatch):
    """The harness itself: an abort and a hang are caught, reported with the case, and the
    worker restarts for the next case."""
    import fuzz_runner

    kind, text = worker.run({"op": "selftest.abort", "inputs": [], "args": []})
    assert kind == "crash" and "selftest.abort" in text and "run_case(" in text, text
    monkeypatch.setattr(fuzz_runner, "CASE_TIMEOUT_S", 5.0)
    kind, text = worker.run({"op": "selftest.hang", "inputs": [], "args": []})
    assert kind == "hang" and "selftest.hang" in text, text
    case = {"op": "table.add", "inputs": [{"shape": [2, 3], "dtype": "float32", "layout": "transposed", "seed": 1}, {"shape": [3], "dtype": "int64", "seed": 2}], "args": []}
    assert worker.run(case) == ("ok", "")


def test_fuzz_against_pytorch(worker, capsys):
    failures: Dict[tuple, List[str]] = {}
    known: Dict[str, int] = {}
    counts = {"cases": 0}

    @_settings(CASES)
    @given(cases())
    def one(case: Dict[str, Any]) -> None:
        counts["cases"] += 1
        kind, text = worker.run(case)
        if kind == "mismatch" and case["op"] in KNOWN and os.environ.get("FERROTORCH_FUZZ_KNOWN") != "0":
            known[case["op"]] = known.get(case["op"], 0) + 1
        elif kind != "ok":
            failures.setdefault((case["op"], kind), []).append(text)
            if LOG:
                with open(LOG, "a") as f:
                    f.write(f"=== {case['op']}: {kind}\n{text}\n")

    if SEED is not None:
        one = hypothesis.seed(int(SEED))(one)
    one()
    with capsys.disabled():
        print(f"\nfuzz: {counts['cases']} cases, {sum(map(len, failures.values()))} failing, known open mismatches: {known or 'none'}")
    if failures:
        lines = [f"{sum(map(len, failures.values()))} failing cases of {counts['cases']} in {len(failures)} (op, kind) groups:"]
        for (op, kind), texts in sorted(failures.items())[:MAX_REPORTS]:
            lines.append(f"\n=== {op}: {kind} x{len(texts)}\n{texts[0]}")
        pytest.fail("\n".join(lines), pytrace=False)
