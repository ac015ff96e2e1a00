"""torch.utils.tensorboard.SummaryWriter: without the tensorboard package the import fails as
PyTorch's does; with it, the event files hold what PyTorch's writer writes for the same calls
(scalars, add_scalars runs, histograms, text, purge_step)."""

from __future__ import annotations

import glob
import importlib
import importlib.util
import os
from typing import Any, List, Tuple

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

HAVE_TB = importlib.util.find_spec("tensorboard") is not None


@pytest.mark.skipif(HAVE_TB, reason="tensorboard is installed")
def test_import_without_tensorboard_fails_like_pytorch() -> None:
    errors = []
    for name in ("ferrotorch.utils.tensorboard", "torch.utils.tensorboard"):
        with pytest.raises(ImportError) as info:
            importlib.import_module(name)
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[0] == errors[1] == ("ModuleNotFoundError", "No module named 'tensorboard'")


def _read(run_dir: str) -> List[Tuple[Any, ...]]:
    """Every summary value of every event file under ``run_dir``, as comparable tuples."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    out = []
    for path in sorted(glob.glob(os.path.join(run_dir, "**", "events.out.tfevents.*"), recursive=True)):
        sub = os.path.relpath(os.path.dirname(path), run_dir)
        for event in EventFileLoader(path).Load():
            if event.HasField("session_log"):
                out.append((sub, event.step, "session_log", event.session_log.status))
            for v in event.summary.value:
                if v.HasField("histo"):
                    h = v.histo
                    out.append((sub, event.step, v.tag, round(h.min, 6), round(h.max, 6), h.num, round(h.sum, 4), [round(x, 9) for x in h.bucket_limit], list(h.bucket)))
                elif v.HasField("tensor"):
                    out.append((sub, event.step, v.tag, v.metadata.plugin_data.plugin_name, list(v.tensor.string_val) or list(v.tensor.float_val)))
                else:
                    out.append((sub, event.step, v.tag, round(v.simple_value, 6)))
    return out


def _log(lib: Any, run_dir: str) -> None:
    from importlib import import_module

    writer_cls = import_module(lib.__name__ + ".utils.tensorboard").SummaryWriter
    rng = np.random.default_rng(0)
    values = rng.standard_normal(200).astype(np.float32)
    with writer_cls(run_dir, purge_step=3) as w:
        for step in range(4):
            w.add_scalar("loss", 1.0 / (step + 1), step)
            w.add_scalar("t/acc", lib.tensor(0.25 * step), global_step=step)
        w.add_scalar("new", 2.5, 7, new_style=True)
        w.add_scalars("run", {"a": 1.0, "b": lib.tensor(2.0)}, 1)
        w.add_scalars("run", {"a": 3.0}, 2)
        w.add_histogram("weights", lib.from_numpy(values), 0)
        w.add_histogram("ints", np.arange(10), 1, bins="auto")
        w.add_histogram("few_bins", values, 2, max_bins=7)
        w.add_text("note", "hello **world**", 5)
        w.flush()


@needs_torch
@pytest.mark.skipif(not HAVE_TB, reason="tensorboard is not installed")
def test_event_files_match_pytorchs(tmp_path: Any) -> None:
    _log(torch, str(tmp_path / "ours"))
    _log(pt, str(tmp_path / "theirs"))
    ours, theirs = _read(str(tmp_path / "ours")), _read(str(tmp_path / "theirs"))
    assert ours == theirs and len(ours) > 10


@pytest.mark.skipif(not HAVE_TB, reason="tensorboard is not installed")
def test_writer_defaults_and_reopen(tmp_path: Any, monkeypatch: Any) -> None:
    from ferrotorch.utils.tensorboard import SummaryWriter

    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_x")
    assert w.get_logdir().startswith("runs" + os.sep) and w.get_logdir().endswith("_x")
    w.close()
    w.add_scalar("after_close", 1.0, 0)  # a closed writer opens a new file
    w.close()
    assert len(glob.glob(os.path.join(w.get_logdir(), "events.out.tfevents.*"))) == 2
    with pytest.raises(AssertionError, match="one element"):
        SummaryWriter(str(tmp_path / "r")).add_scalar("bad", torch.ones(2))
    with pytest.raises(ValueError, match="no element"):
        SummaryWriter(str(tmp_path / "r2")).add_histogram("empty", torch.ones(0))
