"""Checkpoint formats behind ``ferrotorch.save`` / ``ferrotorch.load``: PyTorch's zip archives
(pickled structure plus one record per storage) and ferrotorch's safetensors files."""
