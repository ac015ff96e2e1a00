"""The examples run end to end: the digits CNN reaches its accuracy, checkpoints load back,
and the Rust example reproduces the Python model's accuracy from the saved files."""

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_digits_example_reaches_97_percent(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    pytest.importorskip("matplotlib")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "train_digits.py"), "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "it/s" not in out.stderr, "the progress bar must stay quiet when stderr is not a terminal"
    acc = float(re.search(r"final test accuracy ([\d.]+)%", out.stdout).group(1))
    assert acc >= 97.0, out.stdout
    for name in ("digits_cnn.safetensors", "digits_test.safetensors", "digits_curves.png"):
        assert (tmp_path / name).stat().st_size > 0
    import ferrotorch as torch

    sd = torch.load(tmp_path / "digits_cnn.safetensors")
    assert list(sd) == ["conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    cargo = subprocess.run(["cargo", "run", "--release", "-q", "-p", "ferrotorch", "--example", "digits_inference", "--", str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=900)
    if cargo.returncode != 0 and "cargo" in cargo.stderr and "not found" in cargo.stderr:
        pytest.skip("cargo is not available")
    assert cargo.returncode == 0, cargo.stderr
    rust_acc = float(re.search(r"accuracy ([\d.]+)%", cargo.stdout).group(1))
    assert abs(rust_acc - acc) < 0.01


def run_with_terminal_stderr(args, cwd, env):
    """Runs a program whose stderr is a 100-column pseudo-terminal; returns (stdout, stderr)."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, cwd=cwd, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    stdout = proc.stdout.read()
    proc.wait(timeout=300)
    assert proc.returncode == 0, b"".join(chunks).decode(errors="replace")
    return stdout.decode(), b"".join(chunks).decode(errors="replace")


def test_digits_progress_bar_advances_on_a_terminal(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    pytest.importorskip("matplotlib")
    args = [sys.executable, os.path.join(ROOT, "examples", "train_digits.py"), "--epochs", "2", "--batch-size", "8", "--out", str(tmp_path)]
    # TQDM_MININTERVAL=0 redraws on every update, so the test does not depend on the machine's speed.
    _, err = run_with_terminal_stderr(args, ROOT, dict(os.environ, TQDM_MININTERVAL="0"))
    # Each redraw reads "epoch 1/2:  42%|####   | 76/180 [..., loss=0.501]".
    for epoch in (1, 2):
        counts = [int(n) for n in re.findall(rf"epoch {epoch}/2:[^\r]*?(\d+)/180 \[", err)]
        assert counts == sorted(counts) and set(counts) == set(range(181)), (epoch, counts, err[-2000:])
    assert re.search(r"\d+/180 \[[^\]]*loss=\d", err), err[-2000:]


def test_quickstart_example_fits_coefficients():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "quickstart.py")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "[3.0, -2.0, 1.0]" in out.stdout


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_example_matches_single_process_accuracy(method):
    pytest.importorskip("sklearn")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "hogwild.py"), "--start-method", method], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    single = float(re.search(r"single process: test accuracy ([\d.]+)", out.stdout).group(1))
    hogwild = float(re.search(r"hogwild, 2 processes \(\w+\): test accuracy ([\d.]+)", out.stdout).group(1))
    assert single >= 0.93 and hogwild >= single - 0.02, out.stdout
