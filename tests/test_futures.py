"""ferrotorch.futures against torch.futures: the same operations on both, table-driven."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Dict

import pytest

import ferrotorch.futures as futures
from torch_oracle import needs_torch, pt


def outcome(fn: Callable[[Any], Any], mod: Any) -> str:
    try:
        return repr(fn(mod))
    except Exception as e:  # noqa: BLE001 - the class is the result
        return f"error: {type(e).__name__}"


def _then_chain(m: Any) -> Any:
    f = m.Future()
    g = f.then(lambda x: x.value() * 2).then(lambda x: x.value() + 1)
    f.set_result(5)
    return [g.wait(), g.done(), f.value()]


def _then_after_done(m: Any) -> Any:
    f = m.Future()
    f.set_result([1, 2])
    return f.then(lambda x: len(x.wait())).wait()


def _callback_error(m: Any) -> Any:
    f = m.Future()
    g = f.then(lambda x: 1 / 0)
    f.set_result(1)
    return g.wait()


def _exception_through_then(m: Any) -> Any:
    f = m.Future()
    g = f.then(lambda x: x.value() + 1)
    f.set_exception(ValueError("boom"))
    return g.wait()


def _set_twice(m: Any) -> Any:
    f = m.Future()
    f.set_result(1)
    f.set_result(2)


def _exception_wait(m: Any) -> Any:
    f = m.Future()
    f.set_exception(KeyError("k"))
    return f.wait()


def _done_callbacks(m: Any) -> Any:
    seen = []
    f = m.Future()
    f.add_done_callback(lambda x: seen.append(("first", x.value())))
    f.set_result(3)
    f.add_done_callback(lambda x: seen.append(("late", x.value())))
    return seen


def _collect_all(m: Any) -> Any:
    fs = [m.Future() for _ in range(3)]
    every = m.collect_all(fs)
    before = every.done()
    for i, f in enumerate(fs):
        f.set_result(i * 10)
    return [before, [f.value() for f in every.wait()]]


def _collect_all_with_error(m: Any) -> Any:
    fs = [m.Future(), m.Future()]
    every = m.collect_all(fs)
    fs[0].set_result(1)
    fs[1].set_exception(ValueError("second"))
    got = every.wait()
    return [got[0].value(), every.done()]


def _wait_all(m: Any) -> Any:
    fs = [m.Future(), m.Future()]
    fs[0].set_result("a")
    fs[1].set_result(None)
    return m.wait_all(fs)


def _wait_all_error(m: Any) -> Any:
    fs = [m.Future(), m.Future()]
    fs[0].set_result("a")
    fs[1].set_exception(RuntimeError("bad"))
    return m.wait_all(fs)


def _collect_nothing(m: Any) -> Any:
    return m.collect_all([]).wait()


CASES: Dict[str, Callable[[Any], Any]] = {
    "then_chain": _then_chain, "then_after_done": _then_after_done, "callback_error": _callback_error,
    "exception_through_then": _exception_through_then, "set_twice": _set_twice, "exception_wait": _exception_wait,
    "done_callbacks": _done_callbacks, "collect_all": _collect_all, "collect_all_with_error": _collect_all_with_error,
    "wait_all": _wait_all, "wait_all_error": _wait_all_error, "collect_nothing": _collect_nothing,
}


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_futures_behave_as_torch(name):
    assert outcome(CASES[name], futures) == outcome(CASES[name], pt.futures)


def test_callback_error_names_the_callback_error():
    f = futures.Future()
    g = f.then(lambda x: 1 / 0)
    f.set_result(1)
    with pytest.raises(RuntimeError, match="Got the following error when running the callback: ZeroDivisionError"):
        g.wait()


def test_value_before_completion_raises():
    with pytest.raises(RuntimeError, match="has not completed"):
        futures.Future().value()


@needs_torch
@pytest.mark.parametrize("name", ["then", "wait", "value", "done", "set_result", "set_exception", "add_done_callback"])
def test_method_signatures_match_torch(name):
    ours = list(inspect.signature(getattr(futures.Future, name)).parameters)
    assert ours == list(inspect.signature(getattr(pt.futures.Future, name)).parameters)


@needs_torch
@pytest.mark.parametrize("name", ["collect_all", "wait_all"])
def test_function_signatures_match_torch(name):
    assert list(inspect.signature(getattr(futures, name)).parameters) == list(inspect.signature(getattr(pt.futures, name)).parameters)
