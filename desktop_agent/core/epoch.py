"""Times as epoch seconds: reading one from a file, and turning one into a date without ever failing.

Saved chats keep their times as epoch seconds (floats). A time read from another app's file may be in
milliseconds, microseconds or nanoseconds (Open WebUI writes nanoseconds in places), or plain nonsense (1e20,
-1e15): :func:`plausible_epoch` turns the first into seconds and refuses the rest. :func:`local_datetime` and
:func:`format_epoch` are the one place a saved time becomes a date: a time no date can show (a chat imported
before this check, a damaged database) gives None / the fallback text instead of an OverflowError.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

#: The range of a time a chat can have: 1990-01-01 … 2200-01-01 (epoch seconds).
EARLIEST = 631_152_000.0
LATEST = 7_258_118_400.0

# Thresholds of the finer scales: a value above them is read in milliseconds, microseconds, nanoseconds.
_SCALES = ((1e17, 1e9), (1e14, 1e6), (1e11, 1e3))


def plausible_epoch(value: Any) -> float | None:
    """``value`` as epoch seconds when it is a time a chat can have (milliseconds, microseconds and
    nanoseconds are converted); None for anything else (not a number, bool, NaN, negative, out of range)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        ts = float(value)
    except OverflowError:  # an int too big for a float
        return None
    if not math.isfinite(ts):
        return None
    for above, per_second in _SCALES:
        if ts > above:
            ts /= per_second
            break
    return ts if EARLIEST <= ts <= LATEST else None


def local_datetime(ts: Any) -> datetime | None:
    """``ts`` (epoch seconds) as a local date and time; None when no date can show it."""
    if isinstance(ts, bool) or not isinstance(ts, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(ts)
    except (OverflowError, OSError, ValueError):
        return None


def format_epoch(ts: Any, fmt: str = "%Y-%m-%d %H:%M", fallback: str = "?") -> str:
    """``ts`` (epoch seconds) formatted with ``fmt`` in local time; ``fallback`` when no date can show it."""
    when = local_datetime(ts)
    return when.strftime(fmt) if when is not None else fallback
