"""``repr`` of tensors, printed as PyTorch prints them (precision 4, summarization above
1000 elements with 3 edge items, lines wrapped at 80 columns, sci mode for wide ranges)."""

from __future__ import annotations

import math
from typing import Any, List, Optional


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode: Optional[bool] = None


PRINT_OPTS = _PrintOptions()


def set_printoptions(precision: Optional[int] = None, threshold: Optional[float] = None, edgeitems: Optional[int] = None, linewidth: Optional[int] = None, profile: Optional[str] = None, sci_mode: Optional[bool] = None) -> None:
    """Sets how tensors print (same options and profiles as PyTorch)."""
    if profile == "default":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 4, 1000, 3, 80
    elif profile == "short":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 1000, 2, 80
    elif profile == "full":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 4, math.inf, 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def _finite(v: Any) -> bool:
    return isinstance(v, float) and math.isfinite(v)


class _Formatter:
    """Chooses integer, fixed or scientific notation from the values shown, like PyTorch."""

    def __init__(self, values: List[Any], is_float: bool) -> None:
        self.is_float = is_float
        self.int_mode = True
        self.sci_mode = False
        p = PRINT_OPTS.precision
        if not is_float:
            self.width = max((len(str(v)) for v in values), default=1)
            return
        finite = [v for v in values if _finite(v)]
        nonzero = [abs(v) for v in finite if v != 0]
        if not finite:
            self.width = max((len(self._special(v)) for v in values), default=1)
            return
        # Widths come from the non-zero finite values, as in PyTorch (so -0. is not padded).
        shown = [v for v in finite if v != 0] or finite[:0]
        self.int_mode = all(v == math.floor(v) for v in finite)
        hi, lo = (max(nonzero), min(nonzero)) if nonzero else (0.0, 0.0)
        wide = bool(nonzero) and (hi / lo > 1000.0 or hi > 1e8)
        if self.int_mode:
            if wide:
                self.sci_mode = True
                self.width = max((len(f"{v:.{p}e}") for v in shown), default=1)
            else:
                self.width = max((len(f"{v:.0f}.") for v in shown), default=1)
        else:
            if wide or (bool(nonzero) and lo < 1e-4):
                self.sci_mode = True
                self.width = max((len(f"{v:.{p}e}") for v in shown), default=1)
            else:
                self.width = max((len(f"{v:.{p}f}") for v in shown), default=1)
        if PRINT_OPTS.sci_mode is not None:
            if PRINT_OPTS.sci_mode and not self.sci_mode:
                self.sci_mode = True
                self.width = max(len(f"{v:.{p}e}") for v in finite)
            elif not PRINT_OPTS.sci_mode and self.sci_mode:
                self.sci_mode = False
                self.width = max(len(f"{v:.{p}f}") for v in finite)

    @staticmethod
    def _special(v: float) -> str:
        if math.isnan(v):
            return "nan"
        return "inf" if v > 0 else "-inf"

    def format(self, v: Any) -> str:
        if not self.is_float:
            return str(v).rjust(self.width)
        if not _finite(v):
            return self._special(v).rjust(self.width)
        p = PRINT_OPTS.precision
        if self.sci_mode:
            s = f"{v:.{p}e}"
        elif self.int_mode:
            s = f"{v:.0f}."
        else:
            s = f"{v:.{p}f}"
        return s.rjust(self.width)


class _ComplexFormatter:
    """Real and imaginary parts formatted separately, joined as ``re+imj`` (as PyTorch)."""

    def __init__(self, values: List[Any]) -> None:
        self.re = _Formatter([v.real for v in values], True)
        self.im = _Formatter([v.imag for v in values], True)
        self.width = self.re.width + self.im.width + 1

    def format(self, v: Any) -> str:
        im = (self.im.format(v.imag) + "j").lstrip()
        sign = "" if im[0] in "+-" else "+"
        return self.re.format(v.real) + sign + im


def _summarized_values(data: Any, shape: List[int], summarize: bool) -> List[Any]:
    """The values that will be printed (edge items only when summarizing)."""
    if not shape:
        return [data]
    e = PRINT_OPTS.edgeitems
    items = data if not summarize or shape[0] <= 2 * e else data[:e] + data[-e:]
    out: List[Any] = []
    for it in items:
        out.extend(_summarized_values(it, shape[1:], summarize))
    return out


def _fmt(data: Any, shape: List[int], f: Any, indent: int, summarize: bool) -> str:
    e = PRINT_OPTS.edgeitems
    if len(shape) == 1:
        if summarize and shape[0] > 2 * e:
            elems = [f.format(v) for v in data[:e]] + [" ..."] + [f.format(v) for v in data[-e:]]
        else:
            elems = [f.format(v) for v in data]
        per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / (f.width + 2))))
        lines = [", ".join(elems[i : i + per_line]) for i in range(0, len(elems), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    sep = "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    if summarize and shape[0] > 2 * e:
        parts = [_fmt(d, shape[1:], f, indent + 1, summarize) for d in data[:e]] + ["..."] + [_fmt(d, shape[1:], f, indent + 1, summarize) for d in data[-e:]]
    else:
        parts = [_fmt(d, shape[1:], f, indent + 1, summarize) for d in data]
    return "[" + sep.join(parts) + "]"


def tensor_repr(t: Any) -> str:
    """The text ``repr(t)`` shows: values, then dtype and grad info where PyTorch shows them."""
    import ferrotorch as torch

    shape = list(t.shape)
    prefix = "tensor("
    suffix = []
    if t.numel() == 0:
        body = "[]"
        if len(shape) != 1:
            suffix.append(f"size={tuple(shape)}")
    else:
        data = t.detach()
        if data.dtype in (torch.float16, torch.bfloat16):
            data = data.float()
        values = data.tolist()
        summarize = t.numel() > PRINT_OPTS.threshold
        shown = _summarized_values(values, shape, summarize)
        f: Any = _ComplexFormatter(shown) if t.dtype.is_complex else _Formatter(shown, t.dtype.is_floating_point)
        body = f.format(values) if not shape else _fmt(values, shape, f, len(prefix), summarize)
    default_float = torch.get_default_dtype()
    default_complex = torch.complex128 if default_float == torch.float64 else torch.complex64
    defaults = (default_float, default_complex, torch.int64, torch.bool)
    if t.dtype not in defaults or (t.numel() == 0 and t.dtype != default_float):
        suffix.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffix) + ")"
