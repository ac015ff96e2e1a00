"""Comparing a package's version string with a minimum."""

from __future__ import annotations

import re
from typing import Tuple


def at_least(version: str, minimum: Tuple[int, ...]) -> bool:
    """True if the leading numbers of ``version`` ("2.21.0", "1.15rc1") reach ``minimum``."""
    numbers = tuple(int(n) for n in re.findall(r"\d+", version.split("+")[0])[: len(minimum)])
    return numbers >= minimum
