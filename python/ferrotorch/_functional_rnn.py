"""PyTorch's low-level functional recurrent layers: ``torch.rnn_tanh``, ``torch.rnn_relu``,
``torch.lstm`` and ``torch.gru``, with ATen's two forms:

- ``(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)``
- ``(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)``
  for packed sequences (``data``/``batch_sizes`` of a ``PackedSequence``, ``hx`` in its order).

``params`` is the flat weight list of ``nn.RNN``/``nn.LSTM``/``nn.GRU`` (``_flat_weights``):
per layer and direction ``w_ih, w_hh[, b_ih, b_hh][, w_hr]``. LSTM's ``hx`` is ``(h_0, c_0)``;
a projection (``w_hr``) is recognised by h_0 and c_0 having different last sizes.
The recurrence is the one ``nn.RNN``/``LSTM``/``GRU`` run (their ``forward`` over these weights)."""

from __future__ import annotations

from typing import Any, Dict, Tuple

from . import _core

Tensor = _core.Tensor


def _run(mode: str, args: Tuple[Any, ...], name: str) -> Tuple[Tensor, ...]:
    from .nn.modules.module import Module
    from .nn.modules.rnn import GRU, LSTM, RNN
    from .nn.utils.rnn import PackedSequence

    lstm = mode == "LSTM"
    # The packed form has a Tensor (batch_sizes) where the other has hx / the params sequence.
    packed = len(args) == 9 and isinstance(args[1], Tensor) and (lstm or isinstance(args[2], Tensor))
    if len(args) != 9:
        raise TypeError(f"{name}() takes 9 arguments ({len(args)} given)")
    if packed:
        data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = args
        batch_first = False
        source: Any = PackedSequence(data, batch_sizes)
    else:
        data, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
        source = data
    if lstm:
        hx = tuple(hx)
        if len(hx) != 2:
            raise RuntimeError(f"lstm expects two hidden states, got {len(hx)}")
        state_h, state_c = hx
        hidden_size = state_c.shape[-1]
        proj_size = state_h.shape[-1] if state_h.shape[-1] != hidden_size else 0
    else:
        hidden_size, proj_size = hx.shape[-1], 0
    params = list(params)
    per = (4 if has_biases else 2) + (1 if proj_size else 0)
    dirs = 2 if bidirectional else 1
    if len(params) != per * num_layers * dirs:
        raise RuntimeError(
            f"{name}: expected {per * num_layers * dirs} weight tensors for {num_layers} layer(s), "
            f"{dirs} direction(s){' with biases' if has_biases else ''}, got {len(params)}"
        )

    def weights(layer: int, direction: int) -> Dict[str, Any]:
        group = params[(layer * dirs + direction) * per : (layer * dirs + direction + 1) * per]
        w: Dict[str, Any] = {"weight_ih": group[0], "weight_hh": group[1], "bias_ih": None, "bias_hh": None, "weight_hr": None}
        if has_biases:
            w["bias_ih"], w["bias_hh"] = group[2], group[3]
        if proj_size:
            w["weight_hr"] = group[-1]
        return w

    cls = {"LSTM": LSTM, "GRU": GRU}.get(mode, RNN)
    layer_obj = cls.__new__(cls)
    Module.__init__(layer_obj)
    fields: Dict[str, Any] = {
        "mode": mode,
        "input_size": params[0].shape[1],
        "hidden_size": hidden_size,
        "num_layers": int(num_layers),
        "bias": bool(has_biases),
        "batch_first": bool(batch_first),
        "dropout": float(dropout),
        "bidirectional": bool(bidirectional),
        "proj_size": proj_size,
        "nonlinearity": "relu" if mode == "RNN_RELU" else "tanh",
        "training": bool(train),
        "weight_ih_l0": params[0],
        "_weights": weights,  # an instance attribute wins over the method reading Parameters
    }
    for key, value in fields.items():
        object.__setattr__(layer_obj, key, value)
    out, h_n = layer_obj.forward(source, hx)
    out_data = out.data if packed else out
    if lstm:
        return out_data, h_n[0], h_n[1]
    return out_data, h_n


def rnn_tanh(*args: Any) -> Tuple[Tensor, Tensor]:
    """Elman RNN with tanh over all layers and steps: returns ``(output, h_n)``."""
    return _run("RNN_TANH", args, "rnn_tanh")  # type: ignore[return-value]


def rnn_relu(*args: Any) -> Tuple[Tensor, Tensor]:
    """Elman RNN with ReLU over all layers and steps: returns ``(output, h_n)``."""
    return _run("RNN_RELU", args, "rnn_relu")  # type: ignore[return-value]


def lstm(*args: Any) -> Tuple[Tensor, Tensor, Tensor]:
    """LSTM over all layers and steps: returns ``(output, h_n, c_n)``."""
    return _run("LSTM", args, "lstm")  # type: ignore[return-value]


def gru(*args: Any) -> Tuple[Tensor, Tensor]:
    """GRU over all layers and steps: returns ``(output, h_n)``."""
    return _run("GRU", args, "gru")  # type: ignore[return-value]


__all__: Tuple[str, ...] = ("rnn_tanh", "rnn_relu", "lstm", "gru")
METHODS: Tuple[Any, ...] = ()
