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
    if case["op"].startswith("median") and any(s.get("layout") == "expanded" for s in case["inputs"]):
        # PyTorch's median along a dim reads a stride-0 (expanded) input wrongly: values that
        # are not in the input (torch.ones(1, 3).expand(5, 3).median(0) is not all ones).
        return "pytorch median of expanded input"
    int_target = any(isinstance(a, dict) and a.get("dtype") in ("int8", "int16", "int32", "int64", "uint8") for a in args)
    if int_target and any(s.get("values") in ("special", "extreme") and "float" in s["dtype"] for s in case["inputs"]):
        # A NaN, inf or out-of-range float cast to an integer type is undefined in C++: PyTorch's
        # value is whatever the platform's conversion gives.
        return "float to int cast out of range"
    return None


# op name -> what differs (see the fuzz report for a reproducing case of each).
KNOWN: Dict[str, str] = {
    "masked_fill": "a mask of more dims than the input is refused; a complex value into a bool tensor",
    "clamp_both": "a complex bound with a real tensor: computed where PyTorch refuses",
    "clamp_": "a complex bound with a real tensor: computed where PyTorch refuses",
    "arange": "non-finite / overflowing bounds: different error or none",
    "getitem_tensor": "an index tensor into a zero-size dim: bounds checked where PyTorch has nothing to index",
    "pow_scalar": "int tensor ** complex scalar refused as a negative integer power",
    "rpow_scalar": "int/complex scalar promotion edge cases",
    "table.clamp_min": "clamp of a bool tensor is refused (PyTorch promotes)",
    "maximum_scalar_t": "clamp of bool / complex: refused differently",
    "table.logsumexp": "dim=() without keepdim: PyTorch raises (its output shape check), ours reduces all",
    "mean_all": "mean of values near the float range: ours finite, PyTorch inf",
    "F.cross_entropy": "0-d input and integer / empty inputs: error class",
    "F.cosine_similarity": "complex / half / bool inputs: dtype rule differs",
    "F.hardswish": "subnormal inputs: inf vs 0 edge",
    "bincount": "non-int64 inputs and float inputs: error class",
    "getitem_slice": "0-d slicing: error class",
    # PyTorch's float32 erf is off by up to ~5e-5 relative in the negative tail (gelu(-3) is
    # -0.00404969...; PyTorch -0.00404987, ours -0.0040497).
    "F.gelu": "float32 tail accuracy: PyTorch's own error exceeds the tolerance",
    "table.gelu": "float32 tail accuracy: PyTorch's own error exceeds the tolerance",
}
