"""Module table cases: MultiheadAttention (every constructor flag, every mask form),
TransformerEncoderLayer/Encoder, TransformerDecoderLayer/Decoder and Transformer."""

from typing import Any, List

import numpy as np

from module_table import ModCase, randn

F64 = "float64"
E, H = 4, 2  # embed dim, heads
L, S, N = 3, 5, 2  # query length, key length, batch


def qkv(lq: int = L, lk: int = S, n: int = N, kdim: int = E, vdim: int = E, batch_first: bool = False):
    """Inputs: query, key, value (sequence-first unless batch_first), float64."""

    def make(rng: np.random.Generator):
        def shape(length: int, dim: int):
            return (n, length, dim) if batch_first else (length, n, dim)

        return tuple(randn(*shape(length, dim), dtype=F64)(rng) for length, dim in ((lq, E), (lk, kdim), (lk, vdim)))

    return make


def src(*shape: int):
    return lambda rng: (randn(*shape, dtype=F64)(rng),)


def self_attention(lib: Any, inputs: List[Any]) -> List[Any]:
    """query, key and value the same tensor (the fused-projection path)."""
    return [inputs[0], inputs[0], inputs[0]]


def bool_mask(*shape: int, seed: int = 7) -> np.ndarray:
    """A random bool mask (True = masked) that never masks key 0, so no row is fully masked."""
    m = np.random.default_rng(seed).random(shape) < 0.4
    m[..., 0] = False
    return m


def float_mask(*shape: int, seed: int = 8) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def causal(n: int) -> np.ndarray:
    return np.triu(np.full((n, n), -np.inf), 1)


def mha(**kw: Any):
    return lambda t: t.nn.MultiheadAttention(E, H, dtype=t.float64, **kw)


def enc_layer(t: Any, **kw: Any) -> Any:
    kw.setdefault("dropout", 0.0)
    return t.nn.TransformerEncoderLayer(E, H, dim_feedforward=8, dtype=t.float64, **kw)


def dec_layer(t: Any, **kw: Any) -> Any:
    kw.setdefault("dropout", 0.0)
    return t.nn.TransformerDecoderLayer(E, H, dim_feedforward=8, dtype=t.float64, **kw)


CASES = [
    # MultiheadAttention: constructor flags.
    ModCase("MHA", lambda t: t.nn.MultiheadAttention(E, H), lambda rng: tuple(randn(*s)(rng) for s in ((L, N, E), (S, N, E), (S, N, E)))),
    ModCase("MHA-self", mha(), qkv(S, S), adapt_inputs=self_attention, grad_inputs=(0,)),
    ModCase("MHA-nobias", mha(bias=False), qkv()),
    ModCase("MHA-bias-kv", mha(add_bias_kv=True), qkv()),
    ModCase("MHA-zero-attn", mha(add_zero_attn=True), qkv()),
    ModCase("MHA-bias-kv-zero-attn-masks", mha(add_bias_kv=True, add_zero_attn=True), qkv(), kwargs={"attn_mask": bool_mask(L, S), "key_padding_mask": bool_mask(N, S, seed=3)}),
    ModCase("MHA-kdim-vdim", mha(kdim=3, vdim=5), qkv(kdim=3, vdim=5)),
    ModCase("MHA-kdim-vdim-bias-kv-nobias", mha(kdim=3, vdim=5, bias=False, add_bias_kv=True), qkv(kdim=3, vdim=5), kwargs={"key_padding_mask": bool_mask(N, S)}),
    ModCase("MHA-zero-attn-no-weights", mha(add_zero_attn=True, batch_first=True), qkv(batch_first=True), kwargs={"need_weights": False, "key_padding_mask": bool_mask(N, S), "attn_mask": float_mask(L, S)}),
    ModCase("MHA-bias-kv-3d-mask-per-head", mha(add_bias_kv=True), qkv(), kwargs={"attn_mask": float_mask(N * H, L, S), "average_attn_weights": False}),
    ModCase("MHA-kdim-vdim-nobias-batch-first", mha(kdim=3, vdim=5, bias=False, batch_first=True), qkv(kdim=3, vdim=5, batch_first=True)),
    ModCase("MHA-batch-first", mha(batch_first=True), qkv(batch_first=True)),
    ModCase("MHA-batch-first-self", mha(batch_first=True, device="cpu"), qkv(S, S, batch_first=True), adapt_inputs=self_attention, grad_inputs=(0,)),
    ModCase("MHA-dropout", mha(dropout=0.3), qkv(), random_train=True),
    ModCase("MHA-dropout-no-weights", mha(dropout=0.5), qkv(), kwargs={"need_weights": False}, random_train=True),
    # forward arguments: need_weights, average_attn_weights, masks, is_causal.
    ModCase("MHA-no-weights", mha(), qkv(), kwargs={"need_weights": False}),
    ModCase("MHA-per-head-weights", mha(), qkv(), kwargs={"average_attn_weights": False}),
    ModCase("MHA-bool-mask-2d", mha(), qkv(), kwargs={"attn_mask": bool_mask(L, S)}),
    ModCase("MHA-float-mask-2d", mha(), qkv(), kwargs={"attn_mask": float_mask(L, S)}),
    ModCase("MHA-bool-mask-3d-no-weights", mha(), qkv(), kwargs={"attn_mask": bool_mask(N * H, L, S), "need_weights": False}),
    ModCase("MHA-float-mask-3d", mha(), qkv(), kwargs={"attn_mask": float_mask(N * H, L, S)}),
    ModCase("MHA-key-padding-bool", mha(), qkv(), kwargs={"key_padding_mask": bool_mask(N, S)}),
    ModCase("MHA-key-padding-bool-no-weights", mha(batch_first=True), qkv(batch_first=True), kwargs={"key_padding_mask": bool_mask(N, S), "need_weights": False}),
    ModCase("MHA-key-padding-float-and-mask", mha(), qkv(), kwargs={"key_padding_mask": float_mask(N, S), "attn_mask": float_mask(L, S, seed=2)}),
    ModCase("MHA-causal-hint", mha(), qkv(S, S), kwargs={"attn_mask": causal(S), "is_causal": True, "need_weights": False}, adapt_inputs=self_attention, grad_inputs=(0,)),
    ModCase("MHA-causal-hint-weights", mha(), qkv(S, S), kwargs={"attn_mask": causal(S), "is_causal": True}),
    ModCase("MHA-unbatched", mha(), lambda rng: tuple(randn(*s, dtype=F64)(rng) for s in ((L, E), (S, E), (S, E))), kwargs={"key_padding_mask": bool_mask(S)}),
    ModCase("MHA-unbatched-3d-mask", mha(batch_first=True), lambda rng: tuple(randn(*s, dtype=F64)(rng) for s in ((L, E), (S, E), (S, E))), kwargs={"attn_mask": float_mask(H, L, S), "need_weights": False}),
    ModCase("MHA-zero-batch", mha(), qkv(n=0)),
    ModCase("MHA-noncontiguous", mha(kdim=3, vdim=5), qkv(kdim=3, vdim=5, batch_first=True), adapt_inputs=lambda lib, x: [v.transpose(0, 1) for v in x]),
    # TransformerEncoderLayer: activation, norm_first, eps, batch_first, bias, dim_feedforward.
    ModCase("TEL", lambda t: t.nn.TransformerEncoderLayer(E, H, dim_feedforward=8, dropout=0.0), lambda rng: (randn(L, N, E)(rng),)),
    ModCase("TEL-gelu-norm-first", lambda t: enc_layer(t, activation="gelu", norm_first=True), src(L, N, E)),
    ModCase("TEL-eps-batch-first-nobias", lambda t: enc_layer(t, layer_norm_eps=1e-3, batch_first=True, bias=False), src(N, L, E)),
    ModCase("TEL-gelu-module", lambda t: enc_layer(t, activation=t.nn.GELU()), src(L, N, E)),
    ModCase("TEL-callable", lambda t: enc_layer(t, activation=t.tanh), src(L, N, E)),
    ModCase("TEL-default-ff", lambda t: t.nn.TransformerEncoderLayer(E, H, dropout=0.0, dtype=t.float64), src(L, N, E)),
    ModCase("TEL-dropout", lambda t: t.nn.TransformerEncoderLayer(E, H, dim_feedforward=8, dtype=t.float64), src(L, N, E), random_train=True),
    ModCase("TEL-masks", lambda t: enc_layer(t), src(S, N, E), kwargs={"src_mask": float_mask(S, S), "src_key_padding_mask": bool_mask(N, S)}),
    ModCase("TEL-causal", lambda t: enc_layer(t, batch_first=True), src(N, S, E), kwargs={"src_mask": causal(S), "is_causal": True}),
    ModCase("TEL-bool-mask-norm-first", lambda t: enc_layer(t, norm_first=True), src(S, N, E), kwargs={"src_mask": bool_mask(S, S)}),
    ModCase("TEL-unbatched", lambda t: enc_layer(t), src(S, E), kwargs={"src_key_padding_mask": bool_mask(S)}),
    # TransformerEncoder: norm, enable_nested_tensor, masks, causal detection.
    ModCase("TE-norm", lambda t: t.nn.TransformerEncoder(enc_layer(t), 1, norm=t.nn.LayerNorm(E, dtype=t.float64)), src(L, N, E)),
    ModCase("TE-no-nested", lambda t: t.nn.TransformerEncoder(enc_layer(t, batch_first=True), 1, enable_nested_tensor=False), src(N, S, E), kwargs={"src_key_padding_mask": bool_mask(N, S)}),
    ModCase("TE-causal-detected", lambda t: t.nn.TransformerEncoder(enc_layer(t, norm_first=True), 1, mask_check=False), src(S, N, E), kwargs={"mask": causal(S)}),
    ModCase("TE-causal-hint", lambda t: t.nn.TransformerEncoder(enc_layer(t), 1), src(S, N, E), kwargs={"mask": causal(S), "is_causal": True, "src_key_padding_mask": bool_mask(N, S)}),
    ModCase("TE-3layers", lambda t: t.nn.TransformerEncoder(enc_layer(t, batch_first=True, activation="gelu"), 3), src(N, S, E), kwargs={"src_key_padding_mask": bool_mask(N, S)}),
    # TransformerDecoderLayer / TransformerDecoder.
    ModCase("TDL", lambda t: dec_layer(t), lambda rng: (randn(L, N, E, dtype=F64)(rng), randn(S, N, E, dtype=F64)(rng))),
    ModCase("TDL-gelu-norm-first-batch-first", lambda t: dec_layer(t, activation="gelu", norm_first=True, batch_first=True), lambda rng: (randn(N, L, E, dtype=F64)(rng), randn(N, S, E, dtype=F64)(rng))),
    ModCase("TDL-nobias-eps", lambda t: dec_layer(t, bias=False, layer_norm_eps=1e-4), lambda rng: (randn(L, N, E, dtype=F64)(rng), randn(S, N, E, dtype=F64)(rng))),
    ModCase(
        "TDL-masks",
        lambda t: dec_layer(t),
        lambda rng: (randn(L, N, E, dtype=F64)(rng), randn(S, N, E, dtype=F64)(rng)),
        kwargs={"tgt_mask": causal(L), "tgt_is_causal": True, "memory_mask": float_mask(L, S), "tgt_key_padding_mask": bool_mask(N, L), "memory_key_padding_mask": bool_mask(N, S, seed=4)},
    ),
    ModCase("TDL-dropout", lambda t: dec_layer(t, dropout=0.2), lambda rng: (randn(L, N, E, dtype=F64)(rng), randn(S, N, E, dtype=F64)(rng)), random_train=True),
    ModCase("TDL-unbatched", lambda t: dec_layer(t), lambda rng: (randn(L, E, dtype=F64)(rng), randn(S, E, dtype=F64)(rng)), kwargs={"tgt_mask": causal(L)}),
    ModCase("TD-norm", lambda t: t.nn.TransformerDecoder(dec_layer(t), 1, norm=t.nn.LayerNorm(E, dtype=t.float64)), lambda rng: (randn(L, N, E, dtype=F64)(rng), randn(S, N, E, dtype=F64)(rng)), kwargs={"tgt_mask": causal(L)}),
    ModCase("TD-2layers", lambda t: t.nn.TransformerDecoder(dec_layer(t, norm_first=True), 2), lambda rng: (randn(L, N, E, dtype=F64)(rng), randn(S, N, E, dtype=F64)(rng)), kwargs={"memory_key_padding_mask": bool_mask(N, S)}),
    # Transformer.
    ModCase("Transformer-default-layers", lambda t: t.nn.Transformer(E, H, dim_feedforward=8, dropout=0.0, dtype=t.float64), lambda rng: (randn(S, N, E, dtype=F64)(rng), randn(L, N, E, dtype=F64)(rng)), kwargs={"tgt_mask": causal(L)}),
    ModCase("Transformer-2-3-layers-unbatched", lambda t: t.nn.Transformer(E, H, 2, 3, 8, dropout=0.0, dtype=t.float64), lambda rng: (randn(S, E, dtype=F64)(rng), randn(L, E, dtype=F64)(rng))),
    ModCase(
        "Transformer",
        lambda t: t.nn.Transformer(E, H, 1, 1, 8, dropout=0.0, dtype=t.float64),
        lambda rng: (randn(S, N, E, dtype=F64)(rng), randn(L, N, E, dtype=F64)(rng)),
        kwargs={"tgt_mask": causal(L), "src_key_padding_mask": bool_mask(N, S), "memory_key_padding_mask": bool_mask(N, S)},
    ),
    ModCase(
        "Transformer-batch-first-norm-first-gelu",
        lambda t: t.nn.Transformer(E, H, 1, 1, 8, dropout=0.0, activation="gelu", batch_first=True, norm_first=True, layer_norm_eps=1e-4, dtype=t.float64),
        lambda rng: (randn(N, S, E, dtype=F64)(rng), randn(N, L, E, dtype=F64)(rng)),
        kwargs={"tgt_mask": causal(L), "tgt_is_causal": True},
    ),
    ModCase(
        "Transformer-custom-encoder-decoder",
        lambda t: t.nn.Transformer(E, H, custom_encoder=t.nn.TransformerEncoder(enc_layer(t), 1), custom_decoder=t.nn.TransformerDecoder(dec_layer(t), 2), dtype=t.float64),
        lambda rng: (randn(S, N, E, dtype=F64)(rng), randn(L, N, E, dtype=F64)(rng)),
    ),
    ModCase("Transformer-nobias", lambda t: t.nn.Transformer(E, H, 1, 1, 8, dropout=0.0, bias=False, dtype=t.float64), lambda rng: (randn(S, N, E, dtype=F64)(rng), randn(L, N, E, dtype=F64)(rng))),
    ModCase("Transformer-dropout", lambda t: t.nn.Transformer(E, H, 1, 1, 8, dtype=t.float64), lambda rng: (randn(S, N, E, dtype=F64)(rng), randn(L, N, E, dtype=F64)(rng)), random_train=True),
]
