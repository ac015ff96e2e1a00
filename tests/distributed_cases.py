"""The table of collective cases the distributed tests run: each rank builds its inputs from
(case, rank) alone, tests/distributed_worker.py runs the case under mpirun and records what
every rank holds, and tests/test_distributed.py compares that with NumPy."""

from __future__ import annotations

import zlib
from typing import Dict, List, NamedTuple, Tuple

import numpy as np

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool", "complex64"]
SHAPES: List[Tuple[Tuple[int, ...], str]] = [((5,), "contiguous"), ((2, 3), "contiguous"), ((), "0-d"), ((0, 4), "zero-size"), ((3, 4), "transposed")]
REDUCE_OPS = ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]


class Case(NamedTuple):
    op: str
    dtype: str
    shape: Tuple[int, ...]
    layout: str
    red: str = "SUM"

    @property
    def name(self) -> str:
        dims = "x".join(map(str, self.shape)) or "scalar"
        return f"{self.op}-{self.red}-{self.dtype}-{dims}-{self.layout}"


def reduction_allowed(red: str, dtype: str) -> bool:
    if red == "AVG":
        return dtype.startswith(("float", "bfloat", "complex"))
    if red in ("MIN", "MAX"):
        return not dtype.startswith("complex")
    return True


def cases() -> List[Case]:
    out: List[Case] = []
    for dtype in DTYPES:
        for shape, layout in SHAPES:
            for red in REDUCE_OPS:
                if reduction_allowed(red, dtype):
                    out.append(Case("all_reduce", dtype, shape, layout, red))
            for op in ("broadcast", "all_gather", "gather", "scatter", "send_recv", "isend_irecv"):
                out.append(Case(op, dtype, shape, layout))
            out.append(Case("reduce", dtype, shape, layout, "MAX" if not dtype.startswith("complex") else "SUM"))
        for red in ("SUM", "AVG", "MAX"):
            if reduction_allowed(red, dtype):
                out.append(Case("reduce_scatter_tensor", dtype, (2, 3), "contiguous", red))
        out.append(Case("all_gather_into_tensor", dtype, (2, 3), "contiguous"))
        out.append(Case("all_to_all_single", dtype, (2, 3), "contiguous"))
    return out


def values(case: Case, rank: int, shape: Tuple[int, ...] | None = None, salt: int = 0) -> np.ndarray:
    """Rank ``rank``'s input: small exact values (sums and products stay exact in half types)."""
    shape = case.shape if shape is None else shape
    rng = np.random.default_rng(zlib.crc32(f"{case.name}/{rank}/{salt}".encode()))
    if case.dtype == "bool":
        return rng.random(shape) < 0.5
    if case.dtype == "uint8":
        return rng.integers(0, 4, shape).astype(np.uint8)
    if case.dtype.startswith("int"):
        return rng.integers(-3, 4, shape).astype(case.dtype)
    real = rng.integers(-8, 9, shape) / 8
    if case.dtype.startswith("complex"):
        return (real + 1j * rng.integers(-8, 9, shape) / 8).astype(np.complex128)
    return real.astype(np.float64)


def reduce_np(arrays: List[np.ndarray], red: str, dtype: str) -> np.ndarray:
    a = np.stack(arrays)
    if dtype == "bool":
        red = {"SUM": "MAX", "PRODUCT": "MIN"}.get(red, red)
    if red == "SUM":
        return a.sum(0)
    if red == "AVG":
        return a.mean(0)
    if red == "PRODUCT":
        return a.prod(0)
    return a.max(0) if red == "MAX" else a.min(0)


def expected(case: Case, world: int) -> Dict[int, Dict[str, np.ndarray]]:
    """What every rank should hold after ``case`` (keys as the worker records them)."""
    ins = [values(case, r) for r in range(world)]
    out: Dict[int, Dict[str, np.ndarray]] = {r: {} for r in range(world)}
    root = world - 1
    for r in range(world):
        if case.op == "all_reduce":
            out[r]["tensor"] = reduce_np(ins, case.red, case.dtype)
        elif case.op == "broadcast":
            out[r]["tensor"] = ins[root]
        elif case.op == "reduce":
            out[r]["tensor"] = reduce_np(ins, case.red, case.dtype) if r == 1 % world else ins[r]
        elif case.op == "all_gather":
            for i in range(world):
                out[r][f"list{i}"] = ins[i]
        elif case.op == "gather" and r == root:
            for i in range(world):
                out[r][f"list{i}"] = ins[i]
        elif case.op == "scatter":
            out[r]["tensor"] = values(case, root, salt=100 + r)
        elif case.op in ("send_recv", "isend_irecv"):
            out[r]["tensor"] = ins[(r - 1) % world]
            out[r]["source"] = np.array((r - 1) % world)
        elif case.op == "all_gather_into_tensor":
            out[r]["tensor"] = np.concatenate(ins)
        elif case.op == "reduce_scatter_tensor":
            big = [values(case, i, (2 * world, 3)) for i in range(world)]
            out[r]["tensor"] = reduce_np(big, case.red, case.dtype)[2 * r : 2 * r + 2]
        elif case.op == "all_to_all_single":
            # rank i sends rows [2j, 2j+2) of its (2*world, 3) input to rank j
            big = [values(case, i, (2 * world, 3)) for i in range(world)]
            out[r]["tensor"] = np.concatenate([big[i][2 * r : 2 * r + 2] for i in range(world)])
    return out


def tolerance(dtype: str) -> float:
    return {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "complex64": 1e-6}.get(dtype, 0.0)
