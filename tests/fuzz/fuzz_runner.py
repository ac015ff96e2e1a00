"""The parent side of the fuzzer: feeds cases to a worker process (fuzz_worker.py) over a pipe,
restarts it when it dies, and turns a death or a hang into a report with the reproducing case."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
from typing import Any, Dict, Optional, Tuple

from fuzz_case import describe

HERE = os.path.dirname(os.path.abspath(__file__))
CASE_TIMEOUT_S = float(os.environ.get("FERROTORCH_FUZZ_TIMEOUT", "60"))


class Worker:
    """One worker process, started on first use and after each death."""

    def __init__(self) -> None:
        self.proc: Optional[subprocess.Popen] = None
        self.stderr = tempfile.TemporaryFile()
        self._buf = b""

    def _start(self) -> None:
        env = dict(os.environ, RAYON_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONFAULTHANDLER="1")
        self.stderr.seek(0)
        self.stderr.truncate()
        self._buf = b""
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "fuzz_worker.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env,
        )
        first = self._read_line(120.0)
        if first is None or "ready" not in first:
            raise RuntimeError(f"fuzz worker did not start: {self._stderr_tail()}")

    def _read_line(self, timeout: float) -> Optional[Dict[str, Any]]:
        """The next JSON line, or None on EOF (the worker died) or a hang past ``timeout``."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                self.proc.kill()
                self.proc.wait()
                return {"hang": True}
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.proc.wait()
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def _stderr_tail(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")[-3000:]

    def run(self, case: Dict[str, Any]) -> Tuple[str, str]:
        """("ok", "") or (kind, report) with kind mismatch / crash / oracle_crash / hang / error."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(case) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.proc.wait()
        stage = None
        while True:
            msg = self._read_line(CASE_TIMEOUT_S)
            if msg is None or "hang" in msg:
                kind = "hang" if msg else ("oracle_crash" if stage == "torch" else "crash")
                how = f"exit status {self.proc.returncode}" if msg is None else f"no answer in {CASE_TIMEOUT_S:.0f}s"
                self.proc = None
                return kind, f"{kind} ({how}) while running {stage}\n{report(case)}\nstderr:\n{self._stderr_tail()}"
            if "stage" in msg:
                stage = msg["stage"]
                continue
            if msg["result"] == "ok":
                return "ok", ""
            return msg["result"], f"{msg['message']}\n{report(case, msg.get('describe'))}"

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=30)
        self.proc = None


def report(case: Dict[str, Any], summary: Optional[str] = None) -> str:
    """The case as a summary line and as code that reproduces it in a test."""
    return f"case: {summary or describe(case, strides=False)}\nreproduce: run_case({json.dumps(case)})  # from fuzz_case import run_case"
