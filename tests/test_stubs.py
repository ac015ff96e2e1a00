"""The extension's type stubs (python/ferrotorch/_core.pyi) are scripts/gen_stubs.py's output
for the module as built, so they list exactly what `ferrotorch._core` exports; and the
examples type-check under `mypy --strict` against them."""

import ast
import importlib.util
import os
import subprocess
import sys

import pytest

import ferrotorch
from ferrotorch import _core

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUB = os.path.join(ROOT, "python", "ferrotorch", "_core.pyi")
SKIPPED_CLASS_ATTRS = {"__doc__", "__module__", "__dict__", "__weakref__"}


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_stubs", os.path.join(ROOT, "scripts", "gen_stubs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stub_tree() -> ast.Module:
    with open(STUB) as f:
        return ast.parse(f.read())


def defined_names(body) -> set:
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    return names


def test_committed_stubs_are_the_generated_ones():
    with open(STUB) as f:
        committed = f.read()
    assert committed == load_generator().generate(), (
        "python/ferrotorch/_core.pyi is stale: run python scripts/gen_stubs.py"
    )


def test_stubs_list_exactly_the_module_names():
    exported = {n for n in dir(_core) if not (n.startswith("__") and n.endswith("__"))} | {
        "__version__",
        "__all__",
    }
    assert defined_names(stub_tree().body) == exported


@pytest.mark.parametrize(
    "cls", [c for c in vars(_core).values() if isinstance(c, type)], ids=lambda c: c.__name__
)
def test_stub_classes_list_exactly_the_class_members(cls):
    (node,) = [n for n in stub_tree().body if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
    members = {("__init__" if n == "__new__" else n) for n in vars(cls) if n not in SKIPPED_CLASS_ATTRS}
    assert defined_names(node.body) == members


def test_tensor_stub_types_the_common_methods():
    (tensor,) = [n for n in stub_tree().body if isinstance(n, ast.ClassDef) and n.name == "Tensor"]
    returns = {n.name: ast.unparse(n.returns) for n in tensor.body if isinstance(n, ast.FunctionDef)}
    for name in (
        "add",
        "sum",
        "mean",
        "matmul",
        "reshape",
        "__add__",
        "__getitem__",
        "exp",
        "exp_",
        "backward",
        "item",
        "dim",
        "shape",
        "to",
    ):
        assert returns[name] != "Any", name
    assert returns["backward"] == "None" and returns["dim"] == "int" and returns["sum"] == "Tensor"
    assert os.path.exists(os.path.join(os.path.dirname(ferrotorch.__file__), "py.typed"))


def test_examples_pass_mypy_strict():
    pytest.importorskip("mypy")
    # MYPYPATH points mypy at the package under test (with its py.typed and stubs) rather than
    # whatever an environment's site-packages holds.
    env = dict(os.environ, MYPYPATH=os.path.dirname(os.path.dirname(ferrotorch.__file__)))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            os.path.join(ROOT, ".mypy_cache"),
            "examples",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
