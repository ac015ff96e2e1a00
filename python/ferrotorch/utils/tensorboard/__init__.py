"""``torch.utils.tensorboard``: ``SummaryWriter`` writing TensorBoard event files through the
``tensorboard`` package's own writer. Without that package, importing this module fails as
PyTorch's does."""

import tensorboard

from ..._version_check import at_least

if not at_least(getattr(tensorboard, "__version__", "0"), (1, 15)):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del tensorboard, at_least

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
