"""torch.profiler against PyTorch's: the ops a program runs appear with PyTorch's names and call
counts, record_function ranges nest and total up, schedules record the same steps and call
on_trace_ready at the same points, tables have PyTorch's columns, Chrome traces parse, and the
profiler is off again after its context."""

from __future__ import annotations

import gzip
import json
import os
import warnings
from typing import Any, Dict, List

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _counts(prof: Any, names: List[str]) -> Dict[str, int]:
    found = {e.key: e.count for e in prof.key_averages()}
    return {n: found.get(n, 0) for n in names}


def _quiet() -> Any:
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("ignore")
    return ctx


# Programs of top-level ops whose names PyTorch reports as they are (no op of the list runs
# inside another one in PyTorch), each with the names to count.
PROGRAMS: List[Any] = [
    ("mm_add_sum", lambda L, a: [L.mm(a, a) for _ in range(3)] + [a + a, a + 1, a.sum(), a.sum(0)], ["aten::mm", "aten::add", "aten::sum"]),
    ("unary", lambda L, a: [a.exp(), a.exp(), L.relu(a), a.tanh(), a.sigmoid()], ["aten::exp", "aten::relu", "aten::tanh", "aten::sigmoid"]),
    ("binary", lambda L, a: [a * a, a.mul(2.0), a - a, a / 2, a.div(a)], ["aten::mul", "aten::sub", "aten::div"]),
    ("nn", lambda L, a: [L.nn.functional.linear(a, a), L.nn.functional.mse_loss(a, a), L.nn.functional.softmax(a, -1), L.nn.functional.log_softmax(a, 1)], ["aten::linear", "aten::mse_loss", "aten::softmax", "aten::log_softmax"]),
    # PyTorch's stack runs cat, and its matmul runs bmm: those are counted apart.
    ("conv_stack", lambda L, a: [L.nn.functional.conv2d(a[None, None], a[None, None, :2, :2]), L.stack([a, a]), L.stack([a])], ["aten::conv2d", "aten::stack"]),
    ("cat", lambda L, a: [L.cat([a, a]), L.cat([a], 1), L.cat((a, a, a))], ["aten::cat"]),
    ("matmul", lambda L, a: [a[None] @ a[None], L.matmul(a[None], a[None]), a.matmul(a)], ["aten::matmul"]),
    ("bmm", lambda L, a: [L.bmm(a[None], a[None]), a[None].bmm(a[None])], ["aten::bmm"]),
    ("losses", lambda L, a: [L.nn.functional.l1_loss(a, a), L.nn.functional.cross_entropy(a, L.tensor([0, 1, 2, 3])), L.nn.functional.smooth_l1_loss(a, a)], ["aten::l1_loss", "aten::cross_entropy_loss", "aten::smooth_l1_loss"]),
]


@pytest.mark.parametrize("program", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_op_counts_match_pytorch(program: Any) -> None:
    _, run, names = program
    counts = []
    for lib in (pt, torch):
        a = lib.ones(4, 4)
        ctx = _quiet()
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU]) as prof:
            run(lib, a)
        ctx.__exit__(None, None, None)
        counts.append(_counts(prof, names))
    assert counts[1] == counts[0]
    assert all(v > 0 for v in counts[1].values())


def test_backward_nodes_are_recorded_like_pytorch() -> None:
    names = ["AddBackward0", "MulBackward0", "autograd::engine::evaluate_function: AddBackward0", "autograd::engine::evaluate_function: MulBackward0"]
    counts = []
    for lib in (pt, torch):
        a = lib.ones(3, requires_grad=True)
        ctx = _quiet()
        with lib.profiler.profile() as prof:
            ((a * 2 + a) * a).sum().backward()
        ctx.__exit__(None, None, None)
        counts.append(_counts(prof, names))
    assert counts[1] == counts[0] and counts[1]["MulBackward0"] == 2


def test_input_shapes_grouping_matches_pytorch() -> None:
    results = []
    for lib in (pt, torch):
        a, b = lib.ones(2, 3), lib.ones(3, 4)
        ctx = _quiet()
        with lib.profiler.profile(record_shapes=True) as prof:
            lib.mm(a, b)
            lib.mm(a, b)
            lib.mm(b.t(), a.t())
        ctx.__exit__(None, None, None)
        grouped = sorted((str(e.input_shapes), e.count) for e in prof.key_averages(group_by_input_shape=True) if e.key == "aten::mm")
        results.append(grouped)
        table = prof.key_averages(group_by_input_shape=True).table(sort_by="count", row_limit=5)
        assert "Input Shapes" in table.splitlines()[1]
    assert results[1] == results[0] == [("[[2, 3], [3, 4]]", 2), ("[[4, 3], [3, 2]]", 1)]


def test_record_function_nests_and_totals() -> None:
    a = torch.ones(32, 32)

    @torch.profiler.record_function("decorated")
    def work() -> Any:
        return torch.mm(a, a)

    with torch.profiler.profile() as prof:
        with torch.profiler.record_function("outer"):
            with torch.autograd.profiler.record_function("inner"):
                work()
                work()
            torch.mm(a, a)
    events = prof.events()
    by_name = {e.name: e for e in events}
    outer, inner = by_name["outer"], by_name["inner"]
    assert inner.cpu_parent is outer and outer.cpu_parent is None
    assert [c.name for c in inner.cpu_children] == ["decorated", "decorated"]
    assert [c.name for c in outer.cpu_children] == ["inner", "aten::mm"]
    assert outer.cpu_time_total >= inner.cpu_time_total >= sum(c.cpu_time_total for c in inner.cpu_children)
    assert outer.self_cpu_time_total == pytest.approx(outer.cpu_time_total - sum(c.cpu_time_total for c in outer.cpu_children))
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["decorated"].count == 2 and avg["aten::mm"].count == 3 and avg["outer"].count == 1
    # Self times add up to the one top-level range.
    assert sum(e.self_cpu_time_total for e in events) == pytest.approx(outer.cpu_time_total)
    assert avg["decorated"].cpu_time == pytest.approx(avg["decorated"].cpu_time_total / 2)


def test_table_has_pytorchs_columns_and_sorting() -> None:
    a = torch.ones(16, 16)
    with torch.profiler.profile() as prof:
        for _ in range(4):
            torch.mm(a, a)
        a.exp()
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=1)
    lines = table.splitlines()
    their = pt.autograd.profiler_util.EventList([]).table.__doc__
    assert their is not None
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert lines[1].split("  ") and [h for h in headers if h in lines[1]] == headers
    assert len(lines) == 6 and lines[-1].startswith("Self CPU time total: ")
    row = lines[3].split()
    assert row[0] == "aten::mm" and row[-1] == "4"
    by_count = prof.key_averages().table(sort_by="count")
    assert by_count.splitlines()[3].split()[0] == "aten::mm"
    assert table.endswith("\n")


def test_chrome_trace_is_valid_json(tmp_path: Any) -> None:
    a = torch.ones(8, 8, requires_grad=True)
    with torch.profiler.profile(record_shapes=True) as prof:
        with torch.profiler.record_function("block"):
            torch.mm(a, a).sum().backward()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    doc = json.loads(path.read_text())
    events = doc["traceEvents"]
    assert all(e["ph"] == "X" and isinstance(e["ts"], float) and e["dur"] >= 0 for e in events)
    names = {e["name"]: e for e in events}
    assert names["block"]["cat"] == "user_annotation" and names["aten::mm"]["cat"] == "cpu_op"
    assert names["aten::mm"]["args"]["Input Dims"] == [[8, 8], [8, 8]]
    block = names["block"]
    assert block["ts"] <= names["aten::mm"]["ts"] and names["aten::mm"]["ts"] + names["aten::mm"]["dur"] <= block["ts"] + block["dur"]
    assert any(n.startswith("autograd::engine::evaluate_function: ") for n in names)


def test_profiler_is_off_after_the_context() -> None:
    a = torch.ones(2, 2)
    with torch.profiler.profile() as prof:
        torch.mm(a, a)
        assert torch._core._profiler_enabled()
    assert not torch._core._profiler_enabled()
    before = len(prof.events())
    torch.mm(a, a)
    with torch.profiler.record_function("ignored"):
        torch.mm(a, a)
    assert len(prof.events()) == before
    with pytest.raises(KeyError):
        with torch.profiler.profile():
            raise KeyError("x")
    assert not torch._core._profiler_enabled()


def test_a_second_profiler_is_refused() -> None:
    with torch.profiler.profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            with torch.profiler.profile():
                pass
    assert not torch._core._profiler_enabled()


SCHEDULES = [
    {"wait": 1, "warmup": 1, "active": 2},
    {"wait": 0, "warmup": 1, "active": 1, "repeat": 2},
    {"wait": 2, "warmup": 1, "active": 3, "repeat": 1, "skip_first": 2},
    {"wait": 1, "warmup": 0, "active": 1, "skip_first": 1, "skip_first_wait": 1},
]


@pytest.mark.parametrize("kw", SCHEDULES, ids=[str(k) for k in SCHEDULES])
def test_schedule_matches_pytorch(kw: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = torch.profiler.schedule(**kw), pt.profiler.schedule(**kw)
    assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)]


@pytest.mark.parametrize("kw", SCHEDULES, ids=[str(k) for k in SCHEDULES])
def test_scheduled_profiling_saves_the_same_steps_as_pytorch(kw: Any) -> None:
    runs = []
    for lib in (pt, torch):
        saved: List[Any] = []

        def ready(prof: Any) -> None:
            saved.append((prof.step_num, _counts(prof, ["aten::mm", "ProfilerStep*"])))

        a = lib.ones(4, 4)
        ctx = _quiet()
        with lib.profiler.profile(schedule=lib.profiler.schedule(**kw), on_trace_ready=ready) as prof:
            for _ in range(9):
                lib.mm(a, a)
                lib.mm(a, a)
                prof.step()
        ctx.__exit__(None, None, None)
        runs.append(saved)
    assert runs[1] == runs[0] and runs[1]


def test_schedule_rejects_bad_arguments_like_pytorch() -> None:
    for lib in (pt, torch):
        with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
            lib.profiler.schedule(wait=0, warmup=0, active=0)
        with pytest.warns(UserWarning, match="won't be using warmup"):
            lib.profiler.schedule(wait=0, warmup=0, active=1)


@pytest.mark.parametrize("use_gzip", [False, True])
def test_tensorboard_trace_handler_writes_traces(tmp_path: Any, use_gzip: bool) -> None:
    handler = torch.profiler.tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w0", use_gzip=use_gzip)
    sched = torch.profiler.schedule(wait=0, warmup=1, active=1, repeat=2)
    with torch.profiler.profile(schedule=sched, on_trace_ready=handler) as prof:
        for _ in range(5):
            torch.ones(2) + 1
            prof.step()
    files = sorted(os.listdir(tmp_path / "tb"))
    assert len(files) == 2 and all(f.startswith("w0.") and f.endswith(".pt.trace.json" + (".gz" if use_gzip else "")) for f in files)
    raw = (tmp_path / "tb" / files[0]).read_bytes()
    doc = json.loads(gzip.decompress(raw) if use_gzip else raw)
    assert any(e["name"] == "aten::add" for e in doc["traceEvents"])


def test_autograd_profiler_aliases() -> None:
    assert torch.autograd.profiler.record_function is torch.profiler.record_function
    a = torch.ones(3, 3)
    with torch.autograd.profiler.profile(record_shapes=True) as prof:
        torch.mm(a, a)
    assert [e.name for e in prof.function_events] == ["aten::mm"]
    assert "aten::mm" in prof.table() and "aten::mm" in prof.key_averages().table()
    assert prof.total_average().count == 1
    with torch.autograd.profiler.profile(enabled=False) as off:
        torch.mm(a, a)
    with pytest.raises(RuntimeError, match="didn't finish"):
        off.key_averages()
    with torch.autograd.profiler.emit_nvtx():
        torch.mm(a, a)


def test_options_are_accepted() -> None:
    a = torch.ones(2, 2)
    acts = torch.profiler.supported_activities()
    assert torch.profiler.ProfilerActivity.CPU in acts
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA], profile_memory=True, with_stack=True, with_flops=True, with_modules=True) as prof:
        torch.mm(a, a)
    assert _counts(prof, ["aten::mm"]) == {"aten::mm": 1}


def test_events_before_stop_are_an_error() -> None:
    prof = torch.profiler.profile()
    with pytest.raises(AssertionError):
        prof.events()


def test_steps_are_one_row_in_tables_and_numbered_in_traces(tmp_path: Any) -> None:
    with torch.profiler.profile(schedule=torch.profiler.schedule(wait=0, warmup=1, active=3)) as prof:
        for _ in range(4):
            torch.ones(1) + 1
            prof.step()
    rows = {e.key: e.count for e in prof.key_averages()}
    assert rows["ProfilerStep*"] == 3 and rows["aten::add"] == 3
    path = tmp_path / "t.json"
    prof.export_chrome_trace(str(path))
    steps = sorted(e["name"] for e in json.loads(path.read_text())["traceEvents"] if e["name"].startswith("ProfilerStep"))
    assert steps == ["ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"]
