"""The Summary protos SummaryWriter writes: scalars, histograms (TensorFlow's default bucket
edges, empty buckets at the ends trimmed) and text."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData


def to_numpy(x: Any) -> np.ndarray:
    """A tensor (any dtype), array, list or number as a NumPy array."""
    from ... import _core

    if isinstance(x, _core.Tensor):
        t = x.detach().cpu()
        if t.dtype in (_core.bfloat16, _core.float16):
            t = t.float()
        return np.asarray(t.numpy())
    return np.asarray(x)


def tensorflow_bins() -> List[float]:
    """Bucket edges growing by 10% from 1e-12 to 1e20, mirrored for negatives, and 0."""
    edges = []
    v = 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0.0] + edges


def scalar(tag: str, value: Any, new_style: bool = False, double_precision: bool = False) -> Summary:
    arr = to_numpy(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {arr.size} and {arr.ndim} dimensions.")
    v = float(arr)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=v)])
    proto = TensorProto(double_val=[v], dtype="DT_DOUBLE") if double_precision else TensorProto(float_val=[v], dtype="DT_FLOAT")
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=tag, tensor=proto, metadata=meta)])


def histogram(tag: str, values: Any, bins: Union[str, Sequence[float]], max_bins: Optional[int] = None) -> Summary:
    data = to_numpy(values).astype(float).reshape(-1)
    if data.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(data, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # Merge neighbouring buckets, padding the last group with empty ones.
        group = len(counts) // max_bins
        pad = (-len(counts)) % group
        counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(axis=1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    filled = np.nonzero(counts)[0]
    first, last = int(filled[0]), int(filled[-1]) + 1
    # TensorBoard keeps right edges only: one empty bucket on the left keeps the left edge.
    counts = counts[first - 1 : last] if first > 0 else np.concatenate([[0], counts[:last]])
    limits = limits[first : last + 1]
    hist = HistogramProto(
        min=data.min(),
        max=data.max(),
        num=len(data),
        sum=data.sum(),
        sum_squares=data.dot(data),
        bucket_limit=limits.tolist(),
        bucket=counts.tolist(),
    )
    return Summary(value=[Summary.Value(tag=tag, histo=hist)])


def text(tag: str, text_string: str) -> Summary:
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    proto = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")], tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=proto)])
