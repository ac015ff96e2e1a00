"""What the fuzzer does not count as a failure, and why.

EXCLUDED: deliberate, documented differences; such cases are not compared at all.
KNOWN: open mismatches found by the fuzzer and not fixed yet, by op name. They still run (a crash
in them is still a failure) and the test prints how many there were; delete an entry once fixed,
and a new kind of mismatch in any op fails the test."""

from __future__ import annotations

from typing import Any, Dict, Optional

HALF = ("float16", "bfloat16")


def excluded(case: Dict[str, Any]) -> Optional[str]:
    """The reason this case is a deliberate difference, or None."""
    args = case.get("args", [])
    dtypes = {s["dtype"] for s in case["inputs"]}
    if any(isinstance(a, dict) and "complex" in a for a in args) and dtypes & set(HALF):
        # A complex Python scalar with a half tensor gives complex32 (or an error for bfloat16)
        # in PyTorch; ferrotorch has no complex32 and computes in complex64.
        return "complex32"
    return None


# op name -> what differs (see the fuzz report for a reproducing case of each).
_OVERFLOW = "a Python scalar is not checked against the dtype's range (PyTorch: 'value cannot be converted to type ... without overflow')"
KNOWN: Dict[str, str] = {
    "fill_": _OVERFLOW,
    "masked_fill": _OVERFLOW + "; a mask of more dims than the input is refused",
    "setitem_mask": _OVERFLOW,
    "setitem_int": _OVERFLOW,
    "index_fill": _OVERFLOW + "; 0-d inputs refused",
    "F.pad": _OVERFLOW,
    "clamp_both": _OVERFLOW,
    "clamp_": _OVERFLOW,
    "addcmul": _OVERFLOW,
    "full": _OVERFLOW,
    "eq_scalar": "ints beyond int64 accepted (PyTorch: OverflowError)",
    "mod_scalar": "ints beyond int64 accepted (PyTorch: OverflowError)",
    "arange": "non-finite / overflowing bounds: different error or none",
    "F.avg_pool1d": "zero kernel size: ZeroDivisionError instead of RuntimeError",
    "F.max_pool1d": "zero kernel size / bool input: error class",
    "add_t_alpha": "a bool alpha with a non-bool result is not refused",
    "allclose": "operands of different dtypes are not refused",
    "isclose": "bool operands refused (PyTorch compares them); int/float tolerance edge",
    "getitem_tensor": "an index tensor into a zero-size dim: bounds checked where PyTorch has nothing to index",
    "pow_scalar": "int tensor ** complex scalar refused as a negative integer power",
    "rpow_scalar": "int/complex scalar promotion edge cases",
    "table.clamp_min": "clamp of a bool tensor is refused (PyTorch promotes)",
    "maximum_scalar_t": "clamp of bool / complex: refused differently",
    "table.logsumexp": "0-d input with dims=() and keepdim: shape rule differs",
    "table.nansum": "0-d input with dims=() and keepdim: shape rule differs",
    "table.norm_inf": "empty input: IndexError where PyTorch raises RuntimeError",
    "table.norm_neg_inf": "empty input: IndexError where PyTorch raises RuntimeError",
    "table.silu": "integer input accepted (PyTorch: NotImplementedError)",
    "table.std": "variance of values near the float range overflows to inf (PyTorch scales)",
    "mean_all": "mean of values near the float range: ours finite, PyTorch inf",
    "sub_scalar": "bool tensor - Python number not refused",
    "F.one_hot": "empty input without num_classes not refused",
    "F.cross_entropy": "0-d input: error class",
    "F.cosine_similarity": "complex / half inputs: dtype rule differs",
    "F.hardswish": "subnormal inputs: inf vs 0 edge",
    "einsum_ij_jk": "uint8 operands give int64",
    "permute": "permute() with no dims accepted",
    "bincount": "non-int64 inputs and float inputs: error class",
    "table.lerp_tensor_weight": "NaN weight propagation differs",
    "div_": "in-place division of bfloat16 by float64 refused",
    "getitem_slice": "0-d slicing: error class",
    "table.argmax": "bool input: RuntimeError where PyTorch raises NotImplementedError",
    "table.argmin": "bool input: RuntimeError where PyTorch raises NotImplementedError",
}
