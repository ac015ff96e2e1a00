"""``nn.Module.to`` / ``.cpu()`` / ``.double()`` as PyTorch's, on the CPU: the argument forms
(device, dtype, both, a tensor, keywords, non_blocking), which tensors a dtype applies to,
Parameter identity and gradients, and the errors. (On a GPU, tests/test_cuda_training.py.)"""

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt


def build(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
    m(lib.randn(5, 3)).sum().backward()
    return m


def summary(m):
    return [(k, str(v.dtype).replace("torch.", ""), v.device.type) for k, v in m.state_dict().items()] + [
        (k, str(p.grad.dtype).replace("torch.", "")) for k, p in m.named_parameters()
    ]


CALLS = [
    ("to(float64)", lambda m, lib: m.to(lib.float64)),
    ("to('cpu')", lambda m, lib: m.to("cpu")),
    ("to(device('cpu'), float64)", lambda m, lib: m.to(lib.device("cpu"), lib.float64)),
    ("to('cpu', dtype=float16)", lambda m, lib: m.to("cpu", dtype=lib.float16)),
    ("to(dtype=bfloat16, device='cpu')", lambda m, lib: m.to(dtype=lib.bfloat16, device="cpu")),
    ("to(float64, non_blocking=True)", lambda m, lib: m.to(lib.float64, non_blocking=True)),
    ("to(tensor)", lambda m, lib: m.to(lib.zeros(1, dtype=lib.float64))),
    ("to(int tensor) refused", lambda m, lib: m.to(lib.zeros(1, dtype=lib.int64))),
    ("to(int64) refused", lambda m, lib: m.to(lib.int64)),
    ("double()", lambda m, lib: m.double()),
    ("cpu()", lambda m, lib: m.cpu()),
    ("to(memory_format=...)", lambda m, lib: m.to(memory_format=lib.contiguous_format)),
]


@needs_torch
@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
def test_module_to_forms_match_pytorch(name, call) -> None:
    results = []
    for lib in (torch, pt):
        m = build(lib)
        params = list(m.parameters())
        try:
            out = call(m, lib)
        except Exception as e:  # the error class must match
            results.append(type(e).__name__)
            continue
        assert out is m
        assert all(a is b for a, b in zip(params, m.parameters()))
        results.append(summary(m))
    assert results[0] == results[1]
