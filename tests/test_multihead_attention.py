"""nn.MultiheadAttention against a NumPy transcription of PyTorch's documented algorithm, in
every input layout (batch_first or not, unbatched), for self- and cross-attention, with masks."""

import numpy as np
import pytest

import ferrotorch as torch
from ferrotorch import nn


def softmax(s):
    s = s - s.max(-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(-1, keepdims=True)


def reference(mha, q, k, v, attn_mask=None, key_padding_mask=None):
    """q: [L, N, E], k/v: [S, N, E]; returns out [L, N, E] and head-averaged weights [N, L, S]."""
    E, H = mha.embed_dim, mha.num_heads
    D = E // H
    W = mha.in_proj_weight.detach().numpy()
    b = mha.in_proj_bias.detach().numpy()
    qp, kp, vp = q @ W[:E].T + b[:E], k @ W[E : 2 * E].T + b[E : 2 * E], v @ W[2 * E :].T + b[2 * E :]
    L, N, S = q.shape[0], q.shape[1], k.shape[0]

    def heads(t, n_rows):
        return t.reshape(n_rows, N, H, D).transpose(1, 2, 0, 3)

    scores = heads(qp, L) @ heads(kp, S).transpose(0, 1, 3, 2) / np.sqrt(D)
    if attn_mask is not None:
        scores = scores + (np.where(attn_mask, -np.inf, 0.0) if attn_mask.dtype == bool else attn_mask)
    if key_padding_mask is not None:
        scores = scores + np.where(key_padding_mask, -np.inf, 0.0)[:, None, None, :]
    w = softmax(scores)
    out = (w @ heads(vp, S)).transpose(2, 0, 1, 3).reshape(L, N, E)
    out = out @ mha.out_proj.weight.detach().numpy().T + mha.out_proj.bias.detach().numpy()
    return out, w.mean(1)


def make(batch_first):
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=batch_first).double()
    with torch.no_grad():
        mha.in_proj_bias.copy_(torch.randn(24, dtype=torch.float64))
        mha.out_proj.bias.copy_(torch.randn(8, dtype=torch.float64))
    return mha


def to_layout(a, batch_first):
    return torch.tensor(np.ascontiguousarray(a.transpose(1, 0, 2)) if batch_first else a)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("self_attention", [True, False])
def test_matches_reference(batch_first, self_attention):
    mha = make(batch_first)
    rng = np.random.default_rng(1)
    q = rng.standard_normal((5, 3, 8))
    kv = q if self_attention else rng.standard_normal((4, 3, 8))
    tq = to_layout(q, batch_first)
    tk = tq if self_attention else to_layout(kv, batch_first)
    out, w = mha(tq, tk, tk)
    ref_out, ref_w = reference(mha, q, kv, kv)
    got = out.detach().numpy()
    got = got.transpose(1, 0, 2) if batch_first else got
    np.testing.assert_allclose(got, ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.detach().numpy(), ref_w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("batch_first", [False, True])
def test_masks_match_reference(batch_first):
    mha = make(batch_first)
    rng = np.random.default_rng(2)
    q = rng.standard_normal((4, 2, 8))
    causal = np.triu(np.ones((4, 4), dtype=bool), 1)
    padding = np.array([[False, False, False, True], [False, False, False, False]])
    tq = to_layout(q, batch_first)
    out, w = mha(tq, tq, tq, attn_mask=torch.tensor(causal), key_padding_mask=torch.tensor(padding))
    ref_out, ref_w = reference(mha, q, q, q, attn_mask=causal, key_padding_mask=padding)
    got = out.detach().numpy()
    got = got.transpose(1, 0, 2) if batch_first else got
    np.testing.assert_allclose(got, ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.detach().numpy(), ref_w, rtol=1e-10, atol=1e-12)
    float_mask = rng.standard_normal((4, 4))
    out, _ = mha(tq, tq, tq, attn_mask=torch.tensor(float_mask), need_weights=False)
    got = out.detach().numpy()
    np.testing.assert_allclose(got.transpose(1, 0, 2) if batch_first else got, reference(mha, q, q, q, attn_mask=float_mask)[0], rtol=1e-10, atol=1e-12)


def test_unbatched_input_matches_the_batched_result():
    mha = make(False)
    x = torch.randn(5, 8, dtype=torch.float64)
    out, w = mha(x, x, x)
    out_b, w_b = mha(x.unsqueeze(1), x.unsqueeze(1), x.unsqueeze(1))
    assert out.shape == (5, 8) and w.shape == (5, 5)
    np.testing.assert_allclose(out.detach().numpy(), out_b.detach().numpy()[:, 0], rtol=1e-12)
    np.testing.assert_allclose(w.detach().numpy(), w_b.detach().numpy()[0], rtol=1e-12)


@pytest.mark.parametrize("batch_first", [False, True])
def test_gradients_reach_every_parameter_and_pass_gradcheck(batch_first):
    mha = make(batch_first)
    x = torch.randn(2, 3, 8, dtype=torch.float64, requires_grad=True)
    mha(x, x, x, need_weights=False)[0].pow(2).sum().backward()
    for name, p in mha.named_parameters():
        assert p.grad is not None and p.grad.abs().sum().item() > 0, name
    assert torch.autograd.gradcheck(lambda t: mha(t, t, t, need_weights=False)[0], (x,))
    y = torch.randn(*((2, 4, 8) if batch_first else (4, 3, 8)), dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: mha(a, b, b, need_weights=False)[0], (x, y))
