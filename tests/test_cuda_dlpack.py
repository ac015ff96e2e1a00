"""DLPack with device tensors (kDLCUDA): PyTorch CUDA tensors come in and ours go out without a
copy (same device address, writes seen on both sides), every dtype and strided views, and the
consumer's stream is made to wait for the producer's work. The device tests skip where no CUDA
device (or no CUDA PyTorch) is present; the stream-argument checks run everywhere."""

import numpy as np
import pytest
from cuda_checks import gpu

import ferrotorch as torch

try:
    import torch as pt
except ImportError:  # pragma: no cover - torch is in the test environment
    pt = None

pt_gpu = pytest.mark.skipif(
    pt is None or not pt.cuda.is_available() or not torch.cuda.is_available(),
    reason="needs a CUDA device and a CUDA PyTorch",
)

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]


def _host(t) -> np.ndarray:
    """Values of a PyTorch or ferrotorch tensor on the host (bfloat16 read as float32)."""
    t = t.cpu()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return np.asarray(t.numpy())


def test_cpu_tensor_stream_argument_is_refused() -> None:
    x = torch.arange(4.0)
    with pytest.raises(BufferError, match="stream must be None"):
        x.__dlpack__(stream=1)
    assert x.__dlpack_device__() == (1, 0)


@gpu
def test_device_and_stream_values() -> None:
    x = torch.arange(6.0, device="cuda")
    assert x.__dlpack_device__() == (2, 0)
    for s in (None, 1, 2, -1):
        torch.from_dlpack(x.__dlpack__(stream=s))
    with pytest.raises(ValueError, match="stream 0"):
        x.__dlpack__(stream=0)
    with pytest.raises(TypeError, match="stream must be an int"):
        x.__dlpack__(stream="default")
    # A copy to the host on request, as NumPy asks for it.
    host = torch.from_dlpack(x.__dlpack__(dl_device=(1, 0), copy=True))
    assert host.device.type == "cpu"
    np.testing.assert_array_equal(host.numpy(), np.arange(6.0, dtype=np.float32))
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(1, 0), copy=False)


@pt_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_pytorch_cuda_tensor_comes_in_without_a_copy(dtype: str) -> None:
    src = (pt.arange(24, device="cuda") % 7).to(getattr(pt, dtype)).reshape(4, 6)
    for view in (src, src.t(), src[1:, ::2], src[2, 3]):
        ours = torch.from_dlpack(view)
        assert ours.device.type == "cuda" and ours.shape == tuple(view.shape)
        assert ours.data_ptr() == view.data_ptr()
        np.testing.assert_array_equal(_host(ours), _host(view))
    if dtype != "bool":
        ours = torch.from_dlpack(src)
        ours.mul_(2)
        np.testing.assert_array_equal(_host(src), _host(ours))


@pt_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_our_cuda_tensor_goes_out_without_a_copy(dtype: str) -> None:
    src = (torch.arange(24, device="cuda") % 7).to(getattr(torch, dtype)).reshape(4, 6)
    for view in (src, src.t(), src[1:, ::2], src[2, 3]):
        theirs = pt.from_dlpack(view)
        assert theirs.device.type == "cuda" and tuple(theirs.shape) == view.shape
        assert theirs.data_ptr() == view.data_ptr()
        np.testing.assert_array_equal(_host(theirs), _host(view))


@pt_gpu
def test_pending_work_is_ordered_before_the_consumer() -> None:
    # A large product queued on our stream; PyTorch reads it on its own stream at once.
    a = torch.randn(2048, 2048, device="cuda")
    with torch.cuda.stream(torch.cuda.Stream()):
        c = a @ a
        theirs = pt.from_dlpack(c)
        got = theirs.cpu().numpy()
    np.testing.assert_allclose(got, c.cpu().numpy(), rtol=1e-5, atol=1e-3)
    # And the other way: PyTorch's pending work before ours.
    s = pt.cuda.Stream()
    with pt.cuda.stream(s):
        b = pt.randn(2048, 2048, device="cuda")
        d = b @ b
        ours = torch.from_dlpack(d)
        np.testing.assert_allclose(ours.cpu().numpy(), d.cpu().numpy(), rtol=1e-5, atol=1e-3)


@pt_gpu
def test_imported_memory_lives_while_we_hold_it() -> None:
    ours = torch.from_dlpack(pt.full((1000,), 3.0, device="cuda"))
    pt.cuda.empty_cache()
    _ = pt.zeros(1000, device="cuda")
    assert float(ours.sum()) == 3000.0
