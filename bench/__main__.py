"""``python -m bench``: runs the suite (same as ``python bench/run.py``)."""

from bench.run import main

main()
