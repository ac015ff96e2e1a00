"""README's coverage table and COVERAGE.md are what scripts/coverage.py generates now, so the
counts of PyTorch names ferrotorch has cannot go stale."""

import importlib.util
from pathlib import Path

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

ROOT = Path(__file__).resolve().parent.parent


def _coverage_module():
    spec = importlib.util.spec_from_file_location("coverage_script", ROOT / "scripts" / "coverage.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@needs_torch
def test_readme_and_coverage_md_are_current():
    cov = _coverage_module()
    version = pt.__version__.split("+")[0]
    readme = (ROOT / "README.md").read_text()
    if f"against PyTorch {version}" not in readme:
        pytest.skip(f"the lists were generated against another PyTorch than {version}")
    summary, full = cov.render(cov.categories(pt, torch), {"torch": version})
    assert f"{cov.BEGIN}\n{summary}\n{cov.END}" in readme, "run: python scripts/coverage.py --write"
    assert (ROOT / "COVERAGE.md").read_text() == full, "run: python scripts/coverage.py --write"


@needs_torch
def test_every_optimizer_and_scheduler_pytorch_has():
    cov = _coverage_module()
    cats = {title: (theirs, ours) for title, theirs, ours in cov.categories(pt, torch)}
    for title in ("`optim.*` optimizers", "`optim.lr_scheduler.*` schedulers"):
        theirs, ours = cats[title]
        assert theirs - ours == set(), f"{title}: missing {sorted(theirs - ours)}"
