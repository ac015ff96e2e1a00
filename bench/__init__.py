"""Benchmarks of ferrotorch against PyTorch and NumPy (see bench/README.md)."""
