"""Recurrent layers: RNN, LSTM (with proj_size), GRU — multi-layer, bidirectional,
batch_first, dropout between layers, unbatched input and PackedSequence input.

Parameters follow PyTorch's names, order and layout (``weight_ih_l0``, ``weight_hh_l0_reverse``,
``weight_hr_l0`` ..., gates stacked in PyTorch's order), so state_dicts move between the two
libraries.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, List, Optional, Tuple

from ... import _core
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase, gru_step, lstm_step, rnn_step

Tensor = _core.Tensor

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _ft() -> Any:
    import ferrotorch

    return ferrotorch


class RNNBase(Module):
    """What RNN, LSTM and GRU share: parameters, checks, and the loop over layers, directions
    and time steps. Subclasses supply the step (``_step``)."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                UserWarning,
                stacklevel=2,
            )
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        dt = dtype or _core.get_default_dtype()
        dirs = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: List[str] = []
        self._all_weights: List[List[str]] = []
        for layer in range(num_layers):
            for d in range(dirs):
                suffix = f"_l{layer}" + ("_reverse" if d == 1 else "")
                layer_input = input_size if layer == 0 else real_hidden * dirs
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                names = [base + suffix for base, _ in shapes]
                for name, (_, shape) in zip(names, shapes):
                    setattr(self, name, Parameter(_core.empty(tuple(shape), dtype=dt)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """A no-op kept for PyTorch programs (cuDNN's contiguous weight buffer does not exist here)."""

    @property
    def _flat_weights(self) -> List[Optional[Tensor]]:
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> List[List[Parameter]]:
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
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

    # Subclass hook: one time step for the rows that are running.
    def _step(self, xw: Tensor, state: Tuple[Tensor, ...], w: dict) -> Tuple[Tensor, ...]:
        raise NotImplementedError

    def _state_sizes(self) -> List[int]:
        """The last dim of each state tensor: (h,) or, for LSTM, (h, c)."""
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        return [real_hidden, self.hidden_size] if self.mode == "LSTM" else [real_hidden]

    def _check_state(self, states: Tuple[Tensor, ...], batch: int) -> None:
        expected_lead = (self.num_layers * (2 if self.bidirectional else 1), batch)
        lstm = self.mode == "LSTM"
        for k, (h, size) in enumerate(zip(states, self._state_sizes())):
            expected = expected_lead + (size,)
            if tuple(h.shape) != expected:
                which = f"hidden[{k}]" if lstm else "hidden"
                raise RuntimeError(f"Expected {which} size {expected}, got {list(h.shape)}")

    def _initial_state(self, hx: Any, batch: int, unbatched: bool, dtype: Any, sorted_indices: Optional[Tensor]) -> Tuple[Tensor, ...]:
        lstm = self.mode == "LSTM"
        dirs = 2 if self.bidirectional else 1
        if hx is None:
            return tuple(_core.zeros(self.num_layers * dirs, batch, n, dtype=dtype) for n in self._state_sizes())
        states = tuple(hx) if lstm else (hx,)
        if lstm and len(states) != 2:
            raise IndexError(f"LSTM: expected hx to be a tuple (h_0, c_0), got {len(states)} tensors")
        for h in states:
            if unbatched and h.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx{' and cx' if lstm else ''} should also be 2-D but got {h.ndim}-D tensor")
            if not unbatched and h.ndim != 3:
                raise RuntimeError(f"For batched 3-D input, hx{' and cx' if lstm else ''} should also be 3-D but got {h.ndim}-D tensor")
        if unbatched:
            states = tuple(h.unsqueeze(1) for h in states)
        if sorted_indices is not None:
            # The caller's batch order -> the packed (sorted) order.
            states = tuple(h.index_select(1, sorted_indices) for h in states)
        self._check_state(states, batch)
        return states

    def _weights(self, layer: int, direction: int) -> dict:
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        return {base: getattr(self, base + suffix, None) for base in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")}

    def _run_direction(self, xw_steps: List[Tensor], sizes: List[int], state: Tuple[Tensor, ...], w: dict, reverse: bool) -> Tuple[List[Tensor], Tuple[Tensor, ...]]:
        """Runs the recurrence over the steps (backwards if ``reverse``). Only the first
        ``sizes[t]`` rows run at step t (packed input); the others keep their state, so each
        sequence's final state is the one at its own last step."""
        batch = sizes[0] if sizes else 0
        outs: List[Optional[Tensor]] = [None] * len(sizes)
        order = range(len(sizes) - 1, -1, -1) if reverse else range(len(sizes))
        for t in order:
            n = sizes[t]
            running = state if n == batch else tuple(s.narrow(0, 0, n) for s in state)
            new = self._step(xw_steps[t], running, w)
            outs[t] = new[0]
            if n == batch:
                state = new
            else:
                state = tuple(_ft().cat([a, s.narrow(0, n, batch - n)], 0) for a, s in zip(new, state))
        return outs, state  # type: ignore[return-value]

    def forward(self, input: Any, hx: Any = None) -> Tuple[Any, Any]:
        ft = _ft()
        name = type(self).__name__
        packed = isinstance(input, PackedSequence)
        if packed:
            x = input.data
            sizes = [int(n) for n in input.batch_sizes.tolist()]
            batch, unbatched = (sizes[0] if sizes else 0), False
            if x.ndim != 2:
                raise ValueError(f"{name}: Expected packed data to be 2D, got {x.ndim}D instead")
        else:
            if input.ndim not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead")
            unbatched = input.ndim == 2
            x = input.unsqueeze(1) if unbatched else (input.transpose(0, 1) if self.batch_first else input)
            batch = x.shape[1]
            sizes = [batch] * x.shape[0]
        if not packed and x.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        weight_dtype = self.weight_ih_l0.dtype
        if x.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({x.dtype}) does not match weight dtype ({weight_dtype}). Convert input: input.to({weight_dtype}), or convert model: model.to({x.dtype})")
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {x.shape[-1]}")
        sorted_indices = input.sorted_indices if packed else None
        state0 = self._initial_state(hx, batch, unbatched, x.dtype, sorted_indices)
        dirs = 2 if self.bidirectional else 1
        finals: List[Tuple[Tensor, ...]] = []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w = self._weights(layer, d)
                # The input projection of every step in one product; the loop does the rest.
                xw = F.linear(layer_in, w["weight_ih"], w["bias_ih"])
                if packed:
                    steps = list(xw.split(sizes, 0))
                else:
                    steps = list(xw.unbind(0))
                k = layer * dirs + d
                seq_out, final = self._run_direction(steps, sizes, tuple(s.select(0, k) for s in state0), w, d == 1)
                outs.append(ft.cat(seq_out, 0) if packed else ft.stack(seq_out, 0))
                finals.append(final)
            layer_in = outs[0] if dirs == 1 else ft.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        h_n = tuple(ft.stack([f[i] for f in finals], 0) for i in range(len(state0)))
        if packed:
            if input.unsorted_indices is not None:
                h_n = tuple(h.index_select(1, input.unsorted_indices) for h in h_n)
            out: Any = PackedSequence(layer_in, input.batch_sizes, input.sorted_indices, input.unsorted_indices)
        elif unbatched:
            out = layer_in.squeeze(1)
            h_n = tuple(h.squeeze(1) for h in h_n)
        else:
            out = layer_in.transpose(0, 1) if self.batch_first else layer_in
        return out, (h_n if self.mode == "LSTM" else h_n[0])


class RNN(RNNBase):
    """Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        # proj_size is accepted only to be refused with PyTorch's message.
        super().__init__("RNN_" + nonlinearity.upper(), input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size, device, dtype)

    def _step(self, xw: Tensor, state: Tuple[Tensor, ...], w: dict) -> Tuple[Tensor, ...]:
        return (rnn_step(xw, state[0], w["weight_hh"], w["bias_hh"], self.nonlinearity),)


class LSTM(RNNBase):
    """LSTM, gates stacked as (input, forget, cell, output); ``proj_size`` > 0 projects each
    h_t to that size with ``weight_hr_l{k}``."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size, device, dtype)

    def _step(self, xw: Tensor, state: Tuple[Tensor, ...], w: dict) -> Tuple[Tensor, ...]:
        return lstm_step(xw, state[0], state[1], w["weight_hh"], w["bias_hh"], w["weight_hr"])


class GRU(RNNBase):
    """GRU, gates stacked as (reset, update, new)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size, device, dtype)

    def _step(self, xw: Tensor, state: Tuple[Tensor, ...], w: dict) -> Tuple[Tensor, ...]:
        return (gru_step(xw, state[0], w["weight_hh"], w["bias_hh"]),)


__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
