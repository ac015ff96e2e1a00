"""One recurrent step: RNNCell, LSTMCell, GRUCell, and the step functions the multi-layer
RNN/LSTM/GRU of rnn.py share with them.

Each step takes ``xw`` = x W_ih^T + b_ih already computed (the layers compute it for every
time step at once) and the previous state; gates are stacked in PyTorch's order.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

from ... import _core
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

Tensor = _core.Tensor


def rnn_step(xw: Tensor, h: Tensor, w_hh: Tensor, b_hh: Optional[Tensor], nonlinearity: str) -> Tensor:
    """h' = act(xw + h W_hh^T + b_hh), act tanh or relu."""
    pre = xw + F.linear(h, w_hh, b_hh)
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()


def lstm_step(xw: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Optional[Tensor], w_hr: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    """Gates (input, forget, cell, output); with ``w_hr`` the new h is projected to proj_size."""
    i, f, g, o = (xw + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c2 = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h2 = o.sigmoid() * c2.tanh()
    if w_hr is not None:
        h2 = F.linear(h2, w_hr)
    return h2, c2


def gru_step(xw: Tensor, h: Tensor, w_hh: Tensor, b_hh: Optional[Tensor]) -> Tensor:
    """Gates (reset, update, new); the reset gate scales h W_hn^T + b_hn, as PyTorch does."""
    xr, xz, xn = xw.chunk(3, -1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return n + z * (h - n)


class RNNCellBase(Module):
    """Parameters ``weight_ih`` [chunks*H, in], ``weight_hh`` [chunks*H, H] and the biases."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        dt = dtype or _core.get_default_dtype()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(_core.empty(num_chunks * hidden_size, input_size, dtype=dt))
        self.weight_hh = Parameter(_core.empty(num_chunks * hidden_size, hidden_size, dtype=dt))
        if bias:
            self.bias_ih = Parameter(_core.empty(num_chunks * hidden_size, dtype=dt))
            self.bias_hh = Parameter(_core.empty(num_chunks * hidden_size, dtype=dt))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def _prepare(self, input: Tensor, states: Tuple[Optional[Tensor], ...]) -> Tuple[Tensor, Tuple[Tensor, ...], bool]:
        """Checks shapes, adds the batch dim to unbatched input, fills missing states with 0."""
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        for k, h in enumerate(states):
            if h is not None and h.ndim not in (1, 2):
                raise ValueError(f"{type(self).__name__}: Expected hidden to be 1D or 2D, got {h.ndim}D instead")
        unbatched = input.ndim == 1
        x = input.unsqueeze(0) if unbatched else input
        if x.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {x.shape[1]} expected {self.input_size}")
        out = []
        for k, h in enumerate(states):
            if h is None:
                h = _core.zeros(x.shape[0], self.hidden_size, dtype=x.dtype)
            elif unbatched:
                h = h.unsqueeze(0)
            if h.shape[0] != x.shape[0]:
                raise RuntimeError(f"Input batch size {x.shape[0]} doesn't match hidden{k} batch size {h.shape[0]}")
            if h.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.shape[1]}, expected {self.hidden_size}")
            out.append(h)
        return x, tuple(out), unbatched


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        x, (h,), unbatched = self._prepare(input, (hx,))
        h2 = rnn_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh, self.nonlinearity)
        return h2.squeeze(0) if unbatched else h2


class LSTMCell(RNNCellBase):
    """One LSTM step; ``hx`` is the pair (h, c) and the result is the new pair."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: Optional[Tuple[Tensor, Tensor]] = None) -> Tuple[Tensor, Tensor]:
        x, (h, c), unbatched = self._prepare(input, (None, None) if hx is None else (hx[0], hx[1]))
        h2, c2 = lstm_step(F.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh)
        return (h2.squeeze(0), c2.squeeze(0)) if unbatched else (h2, c2)


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Optional[Tensor] = None) -> Tensor:
        x, (h,), unbatched = self._prepare(input, (hx,))
        h2 = gru_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h2.squeeze(0) if unbatched else h2
