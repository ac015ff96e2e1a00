"""The recurrent and transformer family beyond the module table: nn.utils.rnn against PyTorch,
constructor and forward errors (class and message as PyTorch's), warnings, attention helpers,
and TransformerEncoder's inference output with a key padding mask."""

import warnings

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft, to_pt

pytestmark = needs_torch
R = torch.nn.utils.rnn


def both(fn):
    """Runs ``fn(lib)`` with ferrotorch and PyTorch; returns (ours, theirs) or both exceptions."""
    out = []
    for lib in (torch, pt):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001 - compared below
            out.append(e)
    return out


def assert_same_error(fn):
    ours, theirs = both(fn)
    assert isinstance(theirs, Exception), "PyTorch accepted it"
    assert type(ours) is type(theirs), f"{type(ours).__name__}: {ours} vs torch {type(theirs).__name__}: {theirs}"
    assert str(ours) == str(theirs)


# ---- nn.utils.rnn -------------------------------------------------------------------------


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [[5, 3, 3, 1], [2, 5, 1, 4], [1, 1, 1, 1]])
def test_pack_pad_round_trip(batch_first, lengths):
    x = np.random.default_rng(0).standard_normal((4, 5, 2) if batch_first else (5, 4, 2))
    sorted_ = lengths == sorted(lengths, reverse=True)
    packs = [lib.nn.utils.rnn.pack_padded_sequence(lib.from_numpy(x.copy()), lengths, batch_first=batch_first, enforce_sorted=sorted_) for lib in (torch, pt)]
    for a, b in zip(packs[0], packs[1]):
        assert (a is None) == (b is None)
        if a is not None:
            assert_close(a, b, 0, 0)
    for total, value in ((None, 0.0), (7, -1.5)):
        pa, la = R.pad_packed_sequence(packs[0], batch_first=batch_first, padding_value=value, total_length=total)
        pb, lb = pt.nn.utils.rnn.pad_packed_sequence(packs[1], batch_first=batch_first, padding_value=value, total_length=total)
        assert_close(pa, pb, 0, 0)
        assert_close(la, lb, 0, 0)


def test_pack_gradient_flows_to_padded_input():
    x = np.random.default_rng(1).standard_normal((4, 3, 2))
    grads = []
    for lib in (torch, pt):
        t = lib.from_numpy(x.copy()).requires_grad_(True)
        p = lib.nn.utils.rnn.pack_padded_sequence(t, lib.tensor([2, 4, 3]), enforce_sorted=False)
        (p.data * lib.arange(p.data.shape[0], dtype=lib.float64).unsqueeze(1)).sum().backward()
        grads.append(t.grad)
    assert_close(grads[0], grads[1], 0, 0)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence(batch_first, side):
    seqs = [np.random.default_rng(k).standard_normal((n, 3)) for k, n in enumerate([2, 4, 1])]
    a = R.pad_sequence([torch.from_numpy(s.copy()) for s in seqs], batch_first=batch_first, padding_value=9.0, padding_side=side)
    b = pt.nn.utils.rnn.pad_sequence([pt.from_numpy(s.copy()) for s in seqs], batch_first=batch_first, padding_value=9.0, padding_side=side)
    assert_close(a, b, 0, 0)


def test_pack_sequence_unpack_unpad():
    seqs = [np.random.default_rng(k).standard_normal((n, 2)) for k, n in enumerate([2, 4, 3])]
    a = R.pack_sequence([torch.from_numpy(s.copy()) for s in seqs], enforce_sorted=False)
    b = pt.nn.utils.rnn.pack_sequence([pt.from_numpy(s.copy()) for s in seqs], enforce_sorted=False)
    assert_close(a.data, b.data, 0, 0)
    for u, s in zip(R.unpack_sequence(a), seqs):
        np.testing.assert_array_equal(u.numpy(), s)
    padded = R.pad_sequence([torch.from_numpy(s.copy()) for s in seqs], batch_first=True)
    for u, s in zip(R.unpad_sequence(padded, torch.tensor([2, 4, 3]), batch_first=True), seqs):
        np.testing.assert_array_equal(u.numpy(), s)
    assert isinstance(a, tuple) and a.to(torch.float32).data.dtype == torch.float32


def test_packed_sequence_errors():
    x = np.zeros((3, 2, 1))
    assert_same_error(lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.from_numpy(x), [1, 3]))
    assert_same_error(lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.from_numpy(x), [3, 0]))
    assert_same_error(lambda lib: lib.nn.utils.rnn.pad_packed_sequence(lib.nn.utils.rnn.pack_padded_sequence(lib.from_numpy(x), [3, 2]), total_length=2))


# ---- recurrent layers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda t: t.nn.LSTM(3, 4, proj_size=4),
        lambda t: t.nn.LSTM(3, 4, proj_size=-1),
        lambda t: t.nn.GRU(3, 4, proj_size=1),
        lambda t: t.nn.RNN(3, 0),
        lambda t: t.nn.RNN(3, 4, num_layers=0),
        lambda t: t.nn.RNN(3, 4, dropout=1.5),
        lambda t: t.nn.RNN(3, 4, dropout="0.5"),
        lambda t: t.nn.LSTM(3, 4.0),
        lambda t: t.nn.RNN(3, 4, nonlinearity="sigmoid"),
        lambda t: t.nn.RNN(3, 4)(t.zeros(5, 2, 4)),
        lambda t: t.nn.RNN(3, 4)(t.zeros(5, 2, 3), t.zeros(2, 2, 4)),
        lambda t: t.nn.GRU(3, 4)(t.zeros(5, 3), t.zeros(1, 1, 4)),
        lambda t: t.nn.RNN(3, 4)(t.zeros(2, 5, 2, 3)),
        lambda t: t.nn.LSTM(3, 4)(t.zeros(5, 2, 3), (t.zeros(1, 2, 4), t.zeros(1, 3, 4))),
        lambda t: t.nn.RNNCell(3, 4)(t.zeros(2, 4)),
        lambda t: t.nn.GRUCell(3, 4)(t.zeros(2, 3), t.zeros(3, 4)),
        lambda t: t.nn.LSTMCell(3, 4)(t.zeros(2, 2, 3)),
        lambda t: t.nn.LSTM(3, 4, dtype=t.float64)(t.zeros(5, 2, 3)),
        lambda t: t.nn.GRU(3, 4)(t.zeros(0, 2, 3)),
    ],
)
def test_recurrent_errors_match_torch(build):
    assert_same_error(build)


def test_dropout_with_one_layer_warns():
    for lib in (torch, pt):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
            lib.nn.LSTM(3, 4, dropout=0.2)


def test_lstm_language_model_step_matches_torch():
    """The issue's program: embedding -> packed LSTM -> pad back -> linear, one SGD step."""
    rng = np.random.default_rng(3)
    tokens = rng.integers(0, 10, (4, 6))
    lengths = [6, 2, 5, 3]
    losses = []
    for lib in (torch, pt):
        pt.manual_seed(0)
        emb, lstm, head = pt.nn.Embedding(10, 5), pt.nn.LSTM(5, 8, num_layers=2, batch_first=True), pt.nn.Linear(8, 10)
        mods = [emb, lstm, head]
        if lib is torch:
            ours = [torch.nn.Embedding(10, 5), torch.nn.LSTM(5, 8, num_layers=2, batch_first=True), torch.nn.Linear(8, 10)]
            for o, m in zip(ours, mods):
                o.load_state_dict({k: to_ft(v) for k, v in m.state_dict().items()})
            mods = ours
        params = [p for m in mods for p in m.parameters()]
        opt = lib.optim.SGD(params, lr=0.5)
        for _ in range(2):
            x = mods[0](lib.from_numpy(tokens.copy()))
            packed = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            out, (h, c) = mods[1](packed)
            padded, _ = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
            loss = mods[2](padded).logsumexp(-1).mean() + h.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        losses.append(float(loss))
    assert abs(losses[0] - losses[1]) < 1e-5


# ---- attention and transformers -------------------------------------------------------------


def test_mha_errors_match_torch():
    def run(lib, **kw):
        pt.manual_seed(0)
        m = lib.nn.MultiheadAttention(4, 2)
        q = lib.zeros(3, 2, 4)
        return m(q, q, q, **kw)

    assert_same_error(lambda lib: run(lib, is_causal=True))
    assert_same_error(lambda lib: run(lib, key_padding_mask=lib.zeros(2, 4, dtype=lib.bool)))
    assert_same_error(lambda lib: run(lib, attn_mask=lib.zeros(3, 3, 3)))
    assert_same_error(lambda lib: run(lib, attn_mask=lib.zeros(3, 3, dtype=lib.int64)))
    assert_same_error(lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(5, 2, 4), lib.zeros(4, 2, 4)))
    assert_same_error(lambda lib: lib.nn.MultiheadAttention(4, 2, kdim=3)(lib.zeros(3, 2, 4), lib.zeros(5, 2, 3), lib.zeros(4, 2, 4)))
    assert_same_error(lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 5), lib.zeros(3, 2, 5), lib.zeros(3, 2, 5)))
    assert_same_error(lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 2, 4), lib.zeros(3, 4), lib.zeros(3, 2, 4)))
    assert_same_error(lambda lib: lib.nn.Transformer(4, 2, 1, 1, 8)(lib.zeros(3, 2, 4), lib.zeros(3, 3, 4)))
    assert_same_error(lambda lib: lib.nn.Transformer(4, 2, 1, 1, 8)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 5)))
    assert_same_error(lambda lib: lib.nn.TransformerEncoderLayer(4, 2, 8, activation="tanh"))
    assert_same_error(lambda lib: lib.nn.TransformerEncoderLayer(4, 2, 8)(lib.zeros(3, 2, 4), is_causal=True))
    assert_same_error(lambda lib: lib.nn.TransformerDecoderLayer(4, 2, 8)(lib.zeros(3, 2, 4), lib.zeros(5, 2, 4), tgt_is_causal=True))
    with pytest.raises(AssertionError):
        torch.nn.MultiheadAttention(5, 2)
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        torch.nn.MultiheadAttention(4, 0)
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask"):
        run(torch, attn_mask=torch.zeros(2, 3))


@pytest.mark.parametrize("kind", ["none", "bool", "float", "causal", "scale", "gqa", "dead-rows"])
def test_scaled_dot_product_attention(kind):
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal(s) for s in ((2, 4, 3, 8), (2, 4 if kind != "gqa" else 2, 5, 8), (2, 4 if kind != "gqa" else 2, 5, 6)))
    mask = None
    kw = {}
    if kind in ("bool", "dead-rows"):
        mask = rng.random((3, 5)) < 0.5
        mask[:, 0] = True
        if kind == "dead-rows":
            mask[1] = False  # nothing to attend to: zeros, as PyTorch's math path gives
    elif kind == "float":
        mask = rng.standard_normal((2, 1, 3, 5))
    kw = {"causal": {"is_causal": True}, "scale": {"scale": 0.3}, "gqa": {"enable_gqa": True}}.get(kind, {})
    outs = []
    for lib in (torch, pt):
        args = [lib.from_numpy(a.copy()).requires_grad_(True) for a in (q, k, v)]
        m = None if mask is None else lib.from_numpy(mask.copy())
        out = lib.nn.functional.scaled_dot_product_attention(*args, attn_mask=m, **kw)
        out.sum().backward()
        outs.append([out] + [a.grad for a in args])
    for a, b in zip(*outs):
        assert_close(a, b, 1e-10, 1e-12)


def test_sdpa_causal_and_mask_error():
    assert_same_error(lambda lib: lib.nn.functional.scaled_dot_product_attention(lib.zeros(1, 2, 4), lib.zeros(1, 2, 4), lib.zeros(1, 2, 4), attn_mask=lib.zeros(2, 2), is_causal=True))


@pytest.mark.parametrize("dtype", [None, "float64"])
def test_generate_square_subsequent_mask(dtype):
    a = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=getattr(torch, dtype) if dtype else None)
    b = pt.nn.Transformer.generate_square_subsequent_mask(4, dtype=getattr(pt, dtype) if dtype else None)
    assert_close(a, b, 0, 0)


def test_encoder_nested_tensor_warning_matches_torch():
    messages = []
    for lib in (torch, pt):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 2, 8), 2)
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True), 2)
        messages.append([str(w.message) for w in caught if "enable_nested_tensor" in str(w.message)])
    assert messages[0] == messages[1] and len(messages[0]) == 1


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("padding", [[[0, 0, 0, 1, 1], [0, 0, 0, 0, 0]], [[0, 1, 0, 1, 1], [0, 0, 0, 0, 1]]])
def test_encoder_inference_with_padding_matches_torch(grad, padding):
    """Without autograd PyTorch runs a nested tensor and returns zeros at padded positions
    (before the final norm) when the padding only covers sequence ends."""
    pt.manual_seed(0)
    theirs = pt.nn.TransformerEncoder(pt.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True), 2, norm=pt.nn.LayerNorm(4)).eval()
    ours = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True), 2, norm=torch.nn.LayerNorm(4)).eval()
    ours.load_state_dict({k: to_ft(v) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(2).standard_normal((2, 5, 4)).astype(np.float32)
    kpm = np.array(padding, dtype=bool)
    with pt.set_grad_enabled(grad):
        b = theirs(pt.from_numpy(x.copy()), src_key_padding_mask=pt.from_numpy(kpm))
    with torch.set_grad_enabled(grad):
        a = ours(torch.from_numpy(x.copy()), src_key_padding_mask=torch.from_numpy(kpm))
    assert_close(a, b, 1e-4, 1e-5)
    assert to_pt(a).shape == b.shape
