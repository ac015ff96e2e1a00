"""Real-style PyTorch programs, run under PyTorch and under ferrotorch with only the import changed."""
