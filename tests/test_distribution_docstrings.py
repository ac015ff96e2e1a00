"""The examples in the docstrings of ferrotorch.distributions run and print what they say."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ferrotorch as torch
import ferrotorch.distributions as D

MODULES = sorted(m.name for m in pkgutil.iter_modules(D.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(f"ferrotorch.distributions.{name}")
    globs = {"torch": torch, "constraints": D.constraints, **{n: getattr(D, n) for n in D.__all__}}
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, extraglobs=globs, optionflags=flags, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
