"""Attention and transformer layers: MultiheadAttention, TransformerEncoderLayer,
TransformerEncoder, and ``scaled_dot_product_attention``."""

from __future__ import annotations

import copy
import math
from typing import Any, Callable, Optional, Tuple, Union

from ... import _core
from .. import init
from ..parameter import Parameter
from .module import Module

Tensor = _core.Tensor


def _F() -> Any:
    from .. import functional as F

    return F


def _causal_mask(lq: int, lk: int, dtype: Any) -> Tensor:
    """Float mask with -inf above the diagonal."""
    import ferrotorch

    i = ferrotorch.arange(lq).unsqueeze(1)
    j = ferrotorch.arange(lk).unsqueeze(0)
    return ferrotorch.where(j > i, ferrotorch.tensor(float("-inf"), dtype=dtype), ferrotorch.tensor(0.0, dtype=dtype))


def _as_float_mask(mask: Optional[Tensor], dtype: Any) -> Optional[Tensor]:
    """Bool masks mark positions that may attend (True) in SDPA; convert to additive form."""
    import ferrotorch

    if mask is None:
        return None
    if mask.dtype == ferrotorch.bool:
        return ferrotorch.where(mask, ferrotorch.tensor(0.0, dtype=dtype), ferrotorch.tensor(float("-inf"), dtype=dtype))
    return mask.to(dtype)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor] = None, dropout_p: float = 0.0, is_causal: bool = False, scale: Optional[float] = None, enable_gqa: bool = False) -> Tensor:
    """softmax(Q K^T * scale + mask) V over the last two dims (bool masks: True attends)."""
    F = _F()
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: explicit attn_mask should not be set when is_causal=True")
    lq, lk = query.shape[-2], key.shape[-2]
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query.matmul(key.transpose(-2, -1)) * s
    if is_causal:
        scores = scores + _causal_mask(lq, lk, scores.dtype)
    m = _as_float_mask(attn_mask, scores.dtype)
    if m is not None:
        scores = scores + m
    attn = F.softmax(scores, -1)
    if dropout_p > 0.0:
        attn = F.dropout(attn, dropout_p, True)
    return attn.matmul(value)


class MultiheadAttention(Module):
    """Multi-head attention with PyTorch's parameters: ``in_proj_weight`` [3E, E],
    ``in_proj_bias`` [3E] and ``out_proj`` (a Linear); separate q/k/v weights when
    ``kdim``/``vdim`` differ from ``embed_dim``."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True, add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: Optional[int] = None, vdim: Optional[int] = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        from .linear import Linear

        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} instead")
        if embed_dim % num_heads != 0:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("add_bias_kv and add_zero_attn are not supported yet")
        dt = dtype or _core.get_default_dtype()
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_core.empty(3 * embed_dim, embed_dim, dtype=dt))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(_core.empty(embed_dim, embed_dim, dtype=dt))
            self.k_proj_weight = Parameter(_core.empty(embed_dim, self.kdim, dtype=dt))
            self.v_proj_weight = Parameter(_core.empty(embed_dim, self.vdim, dtype=dt))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_core.empty(3 * embed_dim, dtype=dt))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, dtype=dt)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor] = None, need_weights: bool = True, attn_mask: Optional[Tensor] = None, average_attn_weights: bool = True, is_causal: bool = False) -> Tuple[Tensor, Optional[Tensor]]:
        import ferrotorch

        F = _F()
        same_input = query is key and key is value
        unbatched = query.ndim == 2
        if unbatched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        # Projections run on whichever layout came in; only the head split differs.
        seq_dim = 1 if (self.batch_first and not unbatched) else 0
        lq, n, e = query.shape[seq_dim], query.shape[1 - seq_dim], query.shape[2]
        lk = key.shape[seq_dim]
        if e != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {e}")
        b = self.in_proj_bias
        if self._qkv_same_embed_dim and same_input:
            # Self-attention: one product for q, k and v together.
            q, k, v = F.linear(query, self.in_proj_weight, b).chunk(3, -1)
        else:
            if self._qkv_same_embed_dim:
                wq, wk, wv = self.in_proj_weight.chunk(3, 0)
            else:
                wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
            bq, bk, bv = b.chunk(3, 0) if b is not None else (None, None, None)
            q, k, v = F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)
        h, d = self.num_heads, self.head_dim

        def heads(t: Tensor, length: int) -> Tensor:
            # [N, L, E] or [L, N, E] -> [N, H, L, D], a view
            if seq_dim == 1:
                return t.reshape(n, length, h, d).permute(0, 2, 1, 3)
            return t.reshape(length, n, h, d).permute(1, 2, 0, 3)

        q, k, v = heads(q, lq), heads(k, lk), heads(v, lk)
        scores = q.matmul(k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
        if is_causal and attn_mask is None:
            attn_mask = _causal_mask(lq, lk, scores.dtype)
        if attn_mask is not None:
            # In MultiheadAttention a bool mask marks positions NOT allowed to attend.
            m = attn_mask
            if m.dtype == ferrotorch.bool:
                m = ferrotorch.where(m, ferrotorch.tensor(float("-inf"), dtype=scores.dtype), ferrotorch.tensor(0.0, dtype=scores.dtype))
            if m.ndim == 3:
                m = m.reshape(n, h, lq, lk)
            scores = scores + m.to(scores.dtype)
        if key_padding_mask is not None:
            kp = key_padding_mask
            if kp.dtype == ferrotorch.bool:
                kp = ferrotorch.where(kp, ferrotorch.tensor(float("-inf"), dtype=scores.dtype), ferrotorch.tensor(0.0, dtype=scores.dtype))
            scores = scores + kp.reshape(n, 1, 1, lk).to(scores.dtype)
        attn = F.softmax(scores, -1)
        attn_d = F.dropout(attn, self.dropout, self.training) if self.dropout > 0 else attn
        out = attn_d.matmul(v)
        out = out.permute(0, 2, 1, 3).reshape(n, lq, e) if seq_dim == 1 else out.permute(2, 0, 1, 3).reshape(lq, n, e)
        out = self.out_proj(out)
        if unbatched:
            out = out.squeeze(1)
        weights = None
        if need_weights:
            weights = attn.mean(1) if average_attn_weights else attn
            if unbatched:
                weights = weights.squeeze(0)
        return out, weights


def _get_activation(activation: Union[str, Callable[[Tensor], Tensor]]) -> Callable[[Tensor], Tensor]:
    F = _F()
    if callable(activation):
        return activation
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class TransformerEncoderLayer(Module):
    """Self-attention and feed-forward blocks with residuals and LayerNorm (post-norm by
    default, pre-norm with ``norm_first=True``)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1, activation: Union[str, Callable[[Tensor], Tensor]] = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        from .dropout import Dropout
        from .linear import Linear
        from .normalization import LayerNorm

        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _get_activation(activation)
        self.batch_first = batch_first

    def _sa_block(self, x: Tensor, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor], is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src: Tensor, src_mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None, is_causal: bool = False) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerEncoder(Module):
    """A stack of ``num_layers`` deep copies of ``encoder_layer``, then an optional norm."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Optional[Module] = None, enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        from .container import ModuleList

        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src: Tensor, mask: Optional[Tensor] = None, src_key_padding_mask: Optional[Tensor] = None, is_causal: Optional[bool] = None) -> Tensor:
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        if self.norm is not None:
            out = self.norm(out)
        return out
