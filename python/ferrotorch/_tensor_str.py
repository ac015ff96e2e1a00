"""``repr`` of tensors, printed as PyTorch prints them."""

from __future__ import annotations

from typing import Any, List


def _fmt_float(v: float, ints_only: bool) -> str:
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    if ints_only:
        return f"{v:.0f}."
    return f"{v:.4f}"


def _format_values(flat: List[Any], is_float: bool) -> List[str]:
    if not is_float:
        return [str(v) if not isinstance(v, bool) else str(v) for v in flat]
    finite = [v for v in flat if v == v and abs(v) != float("inf")]
    ints_only = all(float(v).is_integer() for v in finite)
    big = max((abs(v) for v in finite), default=0.0)
    small = min((abs(v) for v in finite if v != 0), default=1.0)
    if finite and not ints_only and (big >= 1e8 or small < 1e-4 or (big / max(small, 1e-300)) > 1e3 and big > 1e3):
        return [f"{v:.4e}" for v in flat]
    if finite and ints_only and big >= 1e8:
        return [f"{v:.4e}" for v in flat]
    return [_fmt_float(float(v), ints_only) for v in flat]


def _nest(strs: List[str], shape: List[int], indent: int) -> str:
    if not shape:
        return strs[0]
    if len(shape) == 1:
        return "[" + ", ".join(strs) + "]"
    step = len(strs) // shape[0] if shape[0] else 0
    parts = [_nest(strs[i * step : (i + 1) * step], shape[1:], indent + 1) for i in range(shape[0])]
    sep = "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def tensor_repr(t: Any) -> str:
    """The text ``repr(t)`` shows: values, then dtype and grad info where PyTorch shows them."""
    import ferrotorch as torch

    shape = list(t.shape)
    flat = t.detach().reshape(-1).tolist() if t.numel() else []
    strs = _format_values(flat, t.dtype.is_floating_point)
    width = max((len(s) for s in strs), default=0)
    strs = [s.rjust(width) for s in strs]
    if t.numel() == 0:
        body = "[]"
    else:
        body = _nest(strs, shape, len("tensor("))
    suffix = []
    if t.numel() == 0 and len(shape) != 1:
        suffix.append(f"size={tuple(shape)}")
    default_float = torch.get_default_dtype()
    if t.dtype not in (default_float, torch.int64, torch.bool) or (t.numel() == 0 and t.dtype != default_float):
        suffix.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"
