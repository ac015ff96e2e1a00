"""The fuzz worker: a long-lived child process that reads cases (one JSON line each) from stdin
and answers one JSON line each, so a Rust abort or segfault kills only this process and the
parent (fuzz_runner.py) reports the case that did it. Before each library runs it writes a
stage line, so the parent can tell our crash from PyTorch's."""

from __future__ import annotations

import json
import os
import resource
import sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]

# A case asking for a huge tensor must fail to allocate, not take the machine's memory.
_LIMIT = int(os.environ.get("FERROTORCH_FUZZ_MEMORY_GB", "12")) << 30
resource.setrlimit(resource.RLIMIT_AS, (_LIMIT, _LIMIT))

import torch  # noqa: E402
from fuzz_case import Mismatch, describe, run_case  # noqa: E402

torch.set_num_threads(1)


class _Stage(list):
    """Tells the parent which library is about to run."""

    def append(self, name: str) -> None:
        _send({"stage": name})


def _send(msg: dict) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def main() -> None:
    _send({"ready": True})
    for line in sys.stdin:
        case = json.loads(line)
        try:
            run_case(case, _Stage())
            _send({"result": "ok"})
        except Mismatch as e:
            _send({"result": "mismatch", "message": str(e), "describe": describe(case)})
        except Exception as e:  # noqa: BLE001 - a harness error is reported, not fatal
            _send({"result": "error", "message": f"{type(e).__name__}: {e}", "describe": describe(case, strides=False)})


if __name__ == "__main__":
    main()
