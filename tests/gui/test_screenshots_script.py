"""scripts/screenshots.py keeps working (it regenerates docs/screenshots/ against a local OllamaServer)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]


def test_screenshot_script_writes_pngs(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "screenshots.py"), "--out", str(tmp_path), "--only", "empty,error"],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    for name in ("empty.png", "error.png"):
        img = QImage(str(tmp_path / name))
        assert not img.isNull() and (img.width(), img.height()) == (1280, 800)
