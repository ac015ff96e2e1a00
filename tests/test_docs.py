"""The docs site (mkdocs.yml, docs/) builds with warnings as errors, and its pages carry what
they promise: the guides, the API reference from docstrings with their examples as code."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for module in ("mkdocs", "mkdocstrings_handlers.python", "material"):
        pytest.importorskip(module)
    out_dir = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    out = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out_dir)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "WARNING" not in out.stderr, out.stderr
    return out_dir


def page(site, name: str) -> str:
    with open(os.path.join(site, name, "index.html")) as f:
        return f.read()


def test_guides_are_built(site):
    assert "fitted coefficients" in page(site, "quickstart")  # examples/quickstart.py, included
    assert "mt19937" in page(site, "from-pytorch")
    assert "cargo doc -p ferrotorch" in page(site, "rust")


def test_api_reference_comes_from_docstrings(site):
    nn = page(site, "api/nn")
    assert 'id="ferrotorch.nn.modules.linear.Linear"' in nn
    assert '<span class="gp">&gt;&gt;&gt; </span>' in nn  # docstring examples rendered as console code
    assert 'id="ferrotorch._core.Tensor.add"' in page(site, "api/tensor")  # from the generated stubs
    assert 'id="ferrotorch.nn._functional_activation.relu"' in page(site, "api/functional")
    assert 'id="ferrotorch.optim.adam.Adam"' in page(site, "api/optim")
