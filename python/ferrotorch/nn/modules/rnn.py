"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional, batch_first, dropout).

Parameters follow PyTorch's names and layout (``weight_ih_l0``, ``weight_hh_l0_reverse`` ...,
gates stacked in PyTorch's order), so state_dicts move between the two libraries.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

from ... import _core
from .. import init
from ..parameter import Parameter
from .module import Module

Tensor = _core.Tensor


def _stack(ts: List[Tensor], dim: int) -> Tensor:
    import ferrotorch

    return ferrotorch.stack(ts, dim)


class RNNBase(Module):
    _gates = 1

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element being zeroed")
        if hidden_size <= 0 or num_layers <= 0:
            raise ValueError("hidden_size and num_layers must be positive")
        if proj_size:
            raise NotImplementedError("proj_size is not supported yet")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        dt = dtype or _core.get_default_dtype()
        dirs = 2 if bidirectional else 1
        g = self._gates * hidden_size
        self._flat_weights_names: List[str] = []
        for layer in range(num_layers):
            for d in range(dirs):
                suffix = f"_l{layer}" + ("_reverse" if d == 1 else "")
                in_size = input_size if layer == 0 else hidden_size * dirs
                names = [("weight_ih", (g, in_size)), ("weight_hh", (g, hidden_size))]
                if bias:
                    names += [("bias_ih", (g,)), ("bias_hh", (g,))]
                for base, shape in names:
                    setattr(self, base + suffix, Parameter(_core.empty(*shape, dtype=dt)))
                    self._flat_weights_names.append(base + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _cell(self, x: Tensor, state: Any, w: Tuple[Tensor, ...]) -> Any:
        raise NotImplementedError

    def _zero_state(self, batch: int, dt: Any) -> Any:
        return _core.zeros(self.num_layers * (2 if self.bidirectional else 1), batch, self.hidden_size, dtype=dt)

    def _run(self, input: Tensor, hx: Any) -> Tuple[Tensor, Any]:
        import ferrotorch

        from .. import functional as F

        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D instead")
        unbatched = input.ndim == 2
        x = input.unsqueeze(1) if unbatched else (input.transpose(0, 1) if self.batch_first else input)
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"{type(self).__name__}: input.size(-1) must be equal to input_size. Expected {self.input_size}, got {x.shape[-1]}")
        seq, batch = x.shape[0], x.shape[1]
        dirs = 2 if self.bidirectional else 1
        is_lstm = self._gates == 4
        if hx is None:
            h0 = self._zero_state(batch, x.dtype)
            state0 = (h0, h0) if is_lstm else h0
        else:
            state0 = tuple(h.unsqueeze(1) for h in hx) if (unbatched and is_lstm) else (hx.unsqueeze(1) if unbatched else hx)
        hs: List[Tensor] = []
        cs: List[Tensor] = []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                suffix = f"_l{layer}" + ("_reverse" if d == 1 else "")
                w = tuple(getattr(self, n + suffix) for n in (("weight_ih", "weight_hh", "bias_ih", "bias_hh") if self.bias else ("weight_ih", "weight_hh")))
                state = (state0[0].select(0, k), state0[1].select(0, k)) if is_lstm else state0.select(0, k)
                # Input projections for all time steps at once, then the recurrence.
                xw = layer_in.matmul(w[0].t())
                if self.bias:
                    xw = xw + w[2]
                steps = range(seq - 1, -1, -1) if d == 1 else range(seq)
                seq_out: List[Optional[Tensor]] = [None] * seq
                for t in steps:
                    state = self._cell(xw.select(0, t), state, w)
                    seq_out[t] = state[0] if is_lstm else state
                outs.append(_stack(seq_out, 0))  # type: ignore[arg-type]
                if is_lstm:
                    hs.append(state[0])
                    cs.append(state[1])
                else:
                    hs.append(state)
            layer_in = outs[0] if dirs == 1 else ferrotorch.cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        out = layer_in
        h_n = _stack(hs, 0)
        if unbatched:
            out, h_n = out.squeeze(1), h_n.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if is_lstm:
            c_n = _stack(cs, 0)
            return out, (h_n, c_n.squeeze(1) if unbatched else c_n)
        return out, h_n

    def forward(self, input: Tensor, hx: Any = None) -> Tuple[Tensor, Any]:
        return self._run(input, hx)


class RNN(RNNBase):
    """Elman RNN: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_" + nonlinearity.upper(), input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, dtype=dtype)

    def _cell(self, xw: Tensor, h: Tensor, w: Tuple[Tensor, ...]) -> Tensor:
        pre = xw + h.matmul(w[1].t())
        if self.bias:
            pre = pre + w[3]
        return pre.tanh() if self.nonlinearity == "tanh" else pre.relu()


class LSTM(RNNBase):
    """LSTM with gates stacked as (input, forget, cell, output), as in PyTorch."""

    _gates = 4

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size, dtype=dtype)

    def _cell(self, xw: Tensor, state: Tuple[Tensor, Tensor], w: Tuple[Tensor, ...]) -> Tuple[Tensor, Tensor]:
        h, c = state
        gates = xw + h.matmul(w[1].t())
        if self.bias:
            gates = gates + w[3]
        i, f, g, o = gates.chunk(4, -1)
        c2 = f.sigmoid() * c + i.sigmoid() * g.tanh()
        return o.sigmoid() * c2.tanh(), c2


class GRU(RNNBase):
    """GRU with gates stacked as (reset, update, new), as in PyTorch."""

    _gates = 3

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, dtype=dtype)

    def _cell(self, xw: Tensor, h: Tensor, w: Tuple[Tensor, ...]) -> Tensor:
        hw = h.matmul(w[1].t())
        if self.bias:
            hw = hw + w[3]
        xr, xz, xn = xw.chunk(3, -1)
        hr, hz, hn = hw.chunk(3, -1)
        r = (xr + hr).sigmoid()
        z = (xz + hz).sigmoid()
        n = (xn + r * hn).tanh()
        return (1 - z) * n + z * h
