"""scripts/local-model.sh uses the project's virtual environment by default (the README's set-up), so the
README's commands work without naming the Python."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import require_model

ROOT = Path(__file__).resolve().parents[2]


def test_path_uses_the_projects_venv_by_default():
    gguf = require_model()
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():  # scripts/test.sh always runs from .venv
        pytest.skip("the suite is not running from the project's .venv, whose model the script finds")
    env = {k: v for k, v in os.environ.items() if k != "PYTHON"}
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "local-model.sh"), "path"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()).resolve() == gguf.resolve()
