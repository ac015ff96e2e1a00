"""The wheel `scripts/wheel.sh` builds installs where no Rust toolchain is present and works:
a fresh venv (PATH without cargo or rustc, outside the repository) runs the quickstart, a
save/load round trip and `python -m ferrotorch`. scripts/test.sh builds the wheel first and sets
FERROTORCH_REQUIRE_WHEEL=1, so there a missing wheel fails instead of skipping."""

import glob
import os
import re
import shutil
import subprocess
import sys
import venv

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ROUND_TRIP = """
import ferrotorch as torch
import ferrotorch.nn as nn

assert "site-packages" in torch.__file__, torch.__file__
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
x = torch.randn(5, 4)
for name in ("model.safetensors", "model.pt"):
    torch.save(model.state_dict(), name)
    clone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    clone.load_state_dict(torch.load(name))
    assert torch.equal(clone(x), model(x)), name
print("round trip ok", torch.__version__)
"""


def cargo_version() -> str:
    with open(os.path.join(ROOT, "Cargo.toml")) as f:
        text = f.read()
    return re.search(r'\[workspace\.package\][^\[]*?version = "([^"]+)"', text).group(1)


def built_wheel() -> str:
    wheels = sorted(
        glob.glob(os.path.join(ROOT, "dist", f"ferrotorch-{cargo_version()}-*.whl")), key=os.path.getmtime
    )
    if not wheels:
        if os.environ.get("FERROTORCH_REQUIRE_WHEEL") == "1":
            pytest.fail("no wheel in dist/: scripts/wheel.sh did not build one")
        pytest.skip("no wheel in dist/ (build one with scripts/wheel.sh)")
    return wheels[-1]


def path_without_rust() -> str:
    """PATH with every folder that holds cargo or rustc taken out."""
    keep = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not any(os.path.exists(os.path.join(d, tool)) for tool in ("cargo", "rustc"))
    ]
    return os.pathsep.join(keep)


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    wheel = built_wheel()
    home = tmp_path_factory.mktemp("wheel_venv")
    venv.create(home / "venv", with_pip=True)
    python = str(home / "venv" / "bin" / "python")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "CARGO", "RUSTUP", "VIRTUAL_ENV"))
    }
    env["PATH"] = os.pathsep.join([str(home / "venv" / "bin"), path_without_rust()])
    assert shutil.which("cargo", path=env["PATH"]) is None and shutil.which("rustc", path=env["PATH"]) is None
    # numpy (the one dependency) comes from the index or pip's cache, ferrotorch from the wheel.
    out = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel],
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return python, env, home


def run(wheel_venv, *args):
    python, env, home = wheel_venv
    out = subprocess.run([python, *args], capture_output=True, text=True, env=env, cwd=home, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_wheel_is_abi3_and_matches_the_cargo_version():
    name = os.path.basename(built_wheel())
    assert re.fullmatch(
        rf"ferrotorch-{re.escape(cargo_version())}-cp310-abi3-(manylinux|linux)\S*\.whl", name
    ), name


def test_wheel_needs_only_system_libraries(tmp_path):
    """The extension links glibc and libgcc only; CUDA libraries are opened at run time."""
    import zipfile

    if shutil.which("readelf") is None:
        pytest.skip("readelf is not available")
    with zipfile.ZipFile(built_wheel()) as whl:
        (name,) = [n for n in whl.namelist() if n.startswith("ferrotorch/_core") and n.endswith(".so")]
        whl.extract(name, tmp_path)
    out = subprocess.run(
        ["readelf", "-d", str(tmp_path / name)], capture_output=True, text=True, check=True
    ).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out))
    system = {
        "libc.so.6",
        "libm.so.6",
        "libgcc_s.so.1",
        "libpthread.so.0",
        "libdl.so.2",
        "librt.so.1",
        "ld-linux-x86-64.so.2",
        "ld-linux-aarch64.so.1",
    }
    assert needed and needed <= system, needed


def test_no_build_targets_the_build_machines_cpu():
    """Kernels pick AVX2/AVX-512 at run time; a target-cpu flag would make the wheel crash elsewhere."""
    paths = ["Cargo.toml", "rust/core/Cargo.toml", "rust/python/Cargo.toml", "pyproject.toml"]
    paths += glob.glob(os.path.join(ROOT, ".cargo", "config*")) + glob.glob(
        os.path.join(ROOT, "scripts", "*.sh")
    )
    paths += glob.glob(os.path.join(ROOT, ".github", "workflows", "*.yml"))
    for path in paths:
        with open(os.path.join(ROOT, path)) as f:
            text = f.read()
        assert "target-cpu" not in text and "target-feature" not in text, path


def test_quickstart_runs_from_the_wheel(wheel_venv):
    out = run(wheel_venv, os.path.join(ROOT, "examples", "quickstart.py"))
    assert "[3.0, -2.0, 1.0]" in out


def test_save_load_round_trip_from_the_wheel(wheel_venv):
    out = run(wheel_venv, "-c", ROUND_TRIP)
    assert f"round trip ok {cargo_version()}" in out


def test_python_m_ferrotorch_reports_the_build(wheel_venv):
    out = run(wheel_venv, "-m", "ferrotorch")
    assert f"ferrotorch version: {cargo_version()}" in out
    assert "Extension module: _core.abi3.so" in out
    assert re.search(r"CUDA backend: (compiled in|not compiled in)", out)
    assert re.search(r"SIMD level in use: (baseline|avx2|avx512)", out)


def test_python_m_ferrotorch_in_this_checkout():
    """The same report from the package under test (no wheel needed)."""
    import ferrotorch

    out = subprocess.run(
        [sys.executable, "-m", "ferrotorch"],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, FERROTORCH_SIMD="baseline"),
    )
    assert out.returncode == 0, out.stderr
    assert f"ferrotorch version: {ferrotorch.__version__}" in out.stdout
    assert "SIMD level in use: baseline" in out.stdout and "FERROTORCH_SIMD=baseline" in out.stdout
    assert ferrotorch.__version__ == cargo_version()
