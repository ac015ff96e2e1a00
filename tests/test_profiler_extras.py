"""torch.profiler's remaining names: the execution-trace observer (standalone and attached to
a profile), the configuration types and DeviceType, beside PyTorch's."""

from __future__ import annotations

import json

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def test_every_public_name_exists():
    assert [n for n in pt.profiler.__all__ if not hasattr(torch.profiler, n)] == []


def test_device_type_members_match_torch_numbering():
    for name in ("CPU", "CUDA", "MKLDNN", "HIP", "MAIA"):
        assert int(getattr(torch.profiler.DeviceType, name)) == int(getattr(pt.profiler.DeviceType, name))


def test_config_types_take_torch_arguments():
    torch.profiler.CuspyConfig(enable_cuda_sync_events=True)
    cfg = torch.profiler.PerformanceMetricsConfig(["sm__cycles"], sampling_interval_ms=2.0)
    act = torch.profiler.ProfilerActivityConfig(activity_types=["kernel"], profiler_configs=[cfg])
    assert act.profiler_configs == [cfg] and torch.profiler.ProfilerActivityConfig().profiler_configs == []
    assert torch.profiler.kineto_available() is True


def mlp_step(lib):
    x = lib.ones(4, 3)
    w = lib.ones(3, 2, requires_grad=True)
    (x @ w).relu().sum().backward()


def load_nodes(path):
    with open(path) as f:
        trace = json.load(f)
    assert {"schema", "pid", "nodes", "start_ts", "finish_ts"} <= set(trace)
    return trace["nodes"]


def test_observer_attached_to_profile_writes_the_ops(tmp_path):
    path = str(tmp_path / "et.json")
    et = torch.profiler.ExecutionTraceObserver().register_callback(path)
    assert et.is_registered and et.get_output_file_path() == path
    with torch.profiler.profile(execution_trace_observer=et):
        mlp_step(torch)
    assert not et.is_registered
    nodes = load_nodes(path)
    names = [n["name"] for n in nodes]
    assert any("mm" in n for n in names) and any("relu" in n for n in names)
    ids = {n["id"] for n in nodes}
    assert all(n["ctrl_deps"] in ids or n["ctrl_deps"] == 0 for n in nodes)


def test_standalone_observer_start_stop(tmp_path):
    path = str(tmp_path / "et.json")
    et = torch.profiler.ExecutionTraceObserver()
    et.register_callback(path)
    et.start()
    assert et.is_running()
    mlp_step(torch)
    et.stop()
    torch.ones(2).exp()  # after stop: not recorded
    et.unregister_callback()
    names = [n["name"] for n in load_nodes(path)]
    assert any("relu" in n for n in names) and not any("exp" in n for n in names)


def test_observer_from_environment(monkeypatch):
    monkeypatch.delenv("ENABLE_PYTORCH_EXECUTION_TRACE", raising=False)
    assert torch.profiler.ExecutionTraceObserver.build_execution_trace_obs_from_env() is None
    monkeypatch.setenv("ENABLE_PYTORCH_EXECUTION_TRACE", "1")
    et = torch.profiler.ExecutionTraceObserver.build_execution_trace_obs_from_env()
    assert et is not None and et.get_output_file_path().endswith(".json")
    et.cleanup()


@pytest.mark.parametrize("can_create", [False, True])
def test_resources_dir(tmp_path, can_create):
    et = torch.profiler.ExecutionTraceObserver().register_callback(str(tmp_path / "t.json"))
    got = et.get_resources_dir(can_create=can_create)
    assert (got is not None) == can_create
