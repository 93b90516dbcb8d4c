"""The one small convention every figure script in ``bench/`` follows, so ``bench/run_all.py`` can collect it.

A figure script accepts ``--figures``; then, besides anything it prints on stderr, it writes one JSON object
per figure to stdout, each on its own line (other stdout lines are ignored by ``run_all.py``)::

    {"figure": "streaming 20,000 tokens: main-thread CPU ÷ one render", "value": 1.4, "unit": "×",
     "limit": "one render of the result", "goal": "≤ 2×", "met": true, "note": "median of 3"}

``value``/``unit`` is the measured figure (a ratio when there is a ``limit`` to compare with), ``limit`` what
it is compared with (text, or null), ``goal`` the target in words, ``met`` whether the goal holds (null when
it has none). ``ratio`` (optional): the figure ÷ its limit when the figure itself is not the ratio (an RSS in
MB against a bare window's); a figure in ``×`` is its own ratio. :func:`emit` writes such lines;
:func:`machine` describes the machine and its load.
Scripts import this module as ``from _figures import Figure, emit`` (``bench/`` is on ``sys.path`` when a
script there is run as ``python bench/x.py``).
"""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import asdict, dataclass


@dataclass
class Figure:
    figure: str
    value: float
    unit: str
    goal: str
    met: bool | None
    limit: str | None = None
    note: str = ""
    ratio: float | None = None


def emit(figures: list[Figure]) -> None:
    """One JSON line per figure on stdout (the ``--figures`` output)."""
    for f in figures:
        print(json.dumps(asdict(f), ensure_ascii=False), flush=True)


def load() -> str:
    one, five, _fifteen = os.getloadavg()
    return f"load {one:.1f} / {five:.1f} (1 / 5 min)"


def machine() -> str:
    """CPU count, OS, Python and Qt versions, and the current load."""
    try:
        from PySide6 import __version__ as qt
    except ImportError:  # pragma: no cover - Qt is a dependency
        qt = "?"
    return (f"{os.cpu_count()} CPUs, {platform.system()} {platform.release()}, Python {sys.version.split()[0]}, "
            f"PySide6 {qt}, QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM', '')}, {load()}")


def rss_mb() -> float:
    """Resident set size of this process (MB), from /proc (Linux)."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")
