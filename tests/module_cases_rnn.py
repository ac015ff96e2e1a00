"""Module table cases: RNN, LSTM, GRU (every constructor flag, h0 given or not, unbatched,
PackedSequence input) and RNNCell, LSTMCell, GRUCell."""

from typing import Any, List, Sequence

from module_table import ModCase, one, randn

F64 = "float64"


def seq(t: int, b: int, f: int, dtype: Any = F64):
    """Inputs: one sequence batch [t, b, f]."""
    return one(t, b, f, dtype=dtype)


def with_h0(x_shape: Sequence[int], *state_shapes: Sequence[int]):
    """Inputs: the sequence and its initial state(s), all float64."""
    return lambda rng: (randn(*x_shape, dtype=F64)(rng),) + tuple(randn(*s, dtype=F64)(rng) for s in state_shapes)


def lstm_state(inputs: List[Any]) -> List[Any]:
    return [inputs[0], (inputs[1], inputs[2])]


def packed(lengths: Sequence[int], batch_first: bool = False, enforce_sorted: bool = True, lstm_h0: bool = False, h0: bool = False):
    """adapt_inputs: packs the padded input with ``lengths`` (optionally passing h0 / (h0, c0))."""

    def adapt(lib: Any, inputs: List[Any]) -> List[Any]:
        x = lib.nn.utils.rnn.pack_padded_sequence(inputs[0], list(lengths), batch_first=batch_first, enforce_sorted=enforce_sorted)
        if lstm_h0:
            return [x, (inputs[1], inputs[2])]
        return [x, inputs[1]] if h0 else [x]

    return adapt


def padded_back(lengths: Sequence[int], enforce_sorted: bool = True, total_length: Any = None, padding_value: float = 0.0):
    """A module that packs, runs an LSTM and pads the output back (the language-model path)."""

    def make(t: Any) -> Any:
        class PackedLSTM(t.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.lstm = t.nn.LSTM(3, 4, batch_first=True, dtype=t.float64)

            def forward(self, x: Any) -> Any:
                p = t.nn.utils.rnn.pack_padded_sequence(x, list(lengths), batch_first=True, enforce_sorted=enforce_sorted)
                out, (h, c) = self.lstm(p)
                padded, lens = t.nn.utils.rnn.pad_packed_sequence(out, batch_first=True, padding_value=padding_value, total_length=total_length)
                return padded, lens, h, c

        return PackedLSTM()

    return make


CASES = [
    # RNN: nonlinearity, layers, bias, batch_first, bidirectional, dropout, dtype.
    ModCase("RNN", lambda t: t.nn.RNN(3, 4), one(5, 2, 3)),
    ModCase("RNN-relu", lambda t: t.nn.RNN(3, 4, nonlinearity="relu", dtype=t.float64), seq(5, 2, 3)),
    ModCase("RNN-3layers-nobias", lambda t: t.nn.RNN(3, 4, num_layers=3, bias=False, dtype=t.float64), seq(4, 2, 3)),
    ModCase("RNN-batch-first-bidir", lambda t: t.nn.RNN(3, 4, batch_first=True, bidirectional=True, dtype=t.float64), seq(2, 5, 3)),
    ModCase("RNN-2layers-bidir-relu", lambda t: t.nn.RNN(3, 4, 2, "relu", bidirectional=True, dtype=t.float64, device="cpu"), seq(4, 3, 3)),
    ModCase("RNN-dropout", lambda t: t.nn.RNN(3, 4, num_layers=2, dropout=0.5, dtype=t.float64), seq(4, 2, 3), random_train=True),
    ModCase("RNN-h0", lambda t: t.nn.RNN(3, 4, num_layers=2, dtype=t.float64), with_h0((5, 2, 3), (2, 2, 4))),
    ModCase("RNN-unbatched", lambda t: t.nn.RNN(3, 4, bidirectional=True, dtype=t.float64), one(5, 3, dtype=F64)),
    ModCase("RNN-unbatched-h0", lambda t: t.nn.RNN(3, 4, dtype=t.float64), with_h0((5, 3), (1, 4))),
    ModCase("RNN-zero-batch", lambda t: t.nn.RNN(3, 4, dtype=t.float64), seq(5, 0, 3)),
    # LSTM: proj_size and the (h0, c0) pair.
    ModCase("LSTM", lambda t: t.nn.LSTM(3, 4), one(5, 2, 3)),
    ModCase("LSTM-2layers-bidir-batch-first", lambda t: t.nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True, dtype=t.float64), seq(2, 5, 3)),
    ModCase("LSTM-nobias-3layers", lambda t: t.nn.LSTM(3, 4, 3, bias=False, dtype=t.float64), seq(4, 2, 3)),
    ModCase("LSTM-proj", lambda t: t.nn.LSTM(3, 5, proj_size=2, dtype=t.float64), seq(4, 2, 3)),
    ModCase("LSTM-proj-2layers-bidir", lambda t: t.nn.LSTM(3, 5, num_layers=2, proj_size=3, bidirectional=True, dtype=t.float64), seq(4, 2, 3)),
    ModCase("LSTM-h0c0", lambda t: t.nn.LSTM(3, 4, num_layers=2, dtype=t.float64), with_h0((5, 2, 3), (2, 2, 4), (2, 2, 4)), adapt_inputs=lambda lib, x: lstm_state(x)),
    ModCase("LSTM-proj-h0c0-bidir", lambda t: t.nn.LSTM(3, 5, proj_size=2, bidirectional=True, dtype=t.float64), with_h0((4, 2, 3), (2, 2, 2), (2, 2, 5)), adapt_inputs=lambda lib, x: lstm_state(x)),
    ModCase("LSTM-unbatched-h0c0", lambda t: t.nn.LSTM(3, 4, dtype=t.float64), with_h0((5, 3), (1, 4), (1, 4)), adapt_inputs=lambda lib, x: lstm_state(x)),
    ModCase("LSTM-dropout", lambda t: t.nn.LSTM(3, 4, num_layers=3, dropout=0.25, dtype=t.float64), seq(4, 2, 3), random_train=True),
    # GRU.
    ModCase("GRU", lambda t: t.nn.GRU(3, 4), one(5, 2, 3)),
    ModCase("GRU-2layers-bidir-nobias", lambda t: t.nn.GRU(3, 4, num_layers=2, bias=False, bidirectional=True, dtype=t.float64), seq(4, 2, 3)),
    ModCase("GRU-batch-first-h0", lambda t: t.nn.GRU(3, 4, batch_first=True, dtype=t.float64), with_h0((2, 5, 3), (1, 2, 4))),
    ModCase("GRU-unbatched", lambda t: t.nn.GRU(3, 4, num_layers=2, dtype=t.float64), one(5, 3, dtype=F64)),
    ModCase("GRU-dropout", lambda t: t.nn.GRU(3, 4, num_layers=2, dropout=1.0, dtype=t.float64), seq(4, 2, 3), random_train=True),
    # PackedSequence input: sorted and unsorted lengths, h0 given, layers and directions.
    ModCase("LSTM-packed", lambda t: t.nn.LSTM(3, 4, dtype=t.float64), seq(5, 3, 3), adapt_inputs=packed([5, 3, 2])),
    ModCase("LSTM-packed-unsorted-bidir-2layers", lambda t: t.nn.LSTM(3, 4, num_layers=2, bidirectional=True, dtype=t.float64), seq(5, 4, 3), adapt_inputs=packed([2, 5, 1, 4], enforce_sorted=False)),
    ModCase("LSTM-packed-proj-h0c0", lambda t: t.nn.LSTM(3, 5, proj_size=2, bidirectional=True, dtype=t.float64), with_h0((4, 3, 3), (2, 3, 2), (2, 3, 5)), adapt_inputs=packed([3, 4, 1], enforce_sorted=False, lstm_h0=True)),
    ModCase("GRU-packed-batch-first-h0", lambda t: t.nn.GRU(3, 4, batch_first=True, bidirectional=True, dtype=t.float64), with_h0((3, 5, 3), (2, 3, 4)), adapt_inputs=packed([4, 5, 2], batch_first=True, enforce_sorted=False, h0=True)),
    ModCase("RNN-packed-relu-3layers", lambda t: t.nn.RNN(3, 4, num_layers=3, nonlinearity="relu", dtype=t.float64), seq(4, 3, 3), adapt_inputs=packed([4, 4, 2])),
    ModCase("LSTM-packed-pad-back", padded_back([4, 2, 5], enforce_sorted=False), seq(3, 5, 3)),
    ModCase("LSTM-packed-pad-back-sorted-total", padded_back([5, 3, 1], enforce_sorted=True, total_length=7, padding_value=-2.0), seq(3, 5, 3)),
    # Unusual but valid: a transposed (non-contiguous) input, a batch of 0.
    ModCase("LSTM-noncontiguous", lambda t: t.nn.LSTM(3, 4, num_layers=2, dtype=t.float64), seq(2, 5, 3), adapt_inputs=lambda lib, x: [x[0].transpose(0, 1)]),
    ModCase("GRU-bidir-zero-batch", lambda t: t.nn.GRU(3, 4, bidirectional=True, dtype=t.float64), seq(5, 0, 3)),
    ModCase("LSTM-proj-zero-batch", lambda t: t.nn.LSTM(3, 4, proj_size=2, dtype=t.float64), seq(5, 0, 3)),
    ModCase("GRUCell-zero-batch", lambda t: t.nn.GRUCell(3, 4, dtype=t.float64), one(0, 3, dtype=F64)),
    # Cells: bias both ways, nonlinearity, hidden state given or not, unbatched.
    ModCase("RNNCell", lambda t: t.nn.RNNCell(3, 4), one(2, 3)),
    ModCase("RNNCell-relu-nobias-h0", lambda t: t.nn.RNNCell(3, 4, bias=False, nonlinearity="relu", dtype=t.float64), with_h0((2, 3), (2, 4))),
    ModCase("RNNCell-unbatched", lambda t: t.nn.RNNCell(3, 4, dtype=t.float64), with_h0((3,), (4,))),
    ModCase("LSTMCell", lambda t: t.nn.LSTMCell(3, 4), one(2, 3)),
    ModCase("LSTMCell-nobias-hc", lambda t: t.nn.LSTMCell(3, 4, bias=False, dtype=t.float64), with_h0((2, 3), (2, 4), (2, 4)), adapt_inputs=lambda lib, x: lstm_state(x)),
    ModCase("LSTMCell-unbatched", lambda t: t.nn.LSTMCell(3, 4, dtype=t.float64, device="cpu"), one(3, dtype=F64)),
    ModCase("GRUCell", lambda t: t.nn.GRUCell(3, 4), one(2, 3)),
    ModCase("GRUCell-nobias-h0", lambda t: t.nn.GRUCell(3, 4, bias=False, dtype=t.float64), with_h0((5, 3), (5, 4))),
    ModCase("GRUCell-unbatched", lambda t: t.nn.GRUCell(3, 4, dtype=t.float64), one(3, dtype=F64)),
]
