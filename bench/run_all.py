"""Every benchmark figure in one run: one line per figure (value, limit, goal, met), the machine and its load.

    python bench/run_all.py [--only NAME ...] [--markdown]

Runs each figure script in ``bench/`` — a ``*.py`` file (not starting with ``_``, not this one) whose
source mentions ``--figures`` — as ``python bench/NAME.py --figures`` in its own process, one after the
other, and reads the JSON lines it prints (the convention is in ``bench/_figures.py`` and
``bench/README.md``). A script that fails is reported as such; the others still run. ``--markdown`` prints
the table the README shows.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _figures import load, machine  # noqa: E402


def figure_scripts() -> list[Path]:
    return [p for p in sorted(HERE.glob("*.py"))
            if not p.name.startswith("_") and p.name != Path(__file__).name and "--figures" in p.read_text()]


def run(script: Path) -> tuple[list[dict], str, float]:
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, str(script), "--figures"], cwd=HERE.parent, capture_output=True,
                          text=True, timeout=900)
    took = time.monotonic() - t0
    figures = []
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            try:
                figures.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    problem = "" if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}"
    return figures, problem, took


def fmt_value(f: dict) -> str:
    value = f["value"]
    return f"{value:g} {f['unit']}".replace(" ×", "×")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", default=None, help="script names (without .py) to run")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table (the README's)")
    args = ap.parse_args(argv)
    scripts = [s for s in figure_scripts() if args.only is None or s.stem in args.only]
    print(f"machine: {machine()}")
    rows: list[tuple[str, dict]] = []
    for script in scripts:
        figures, problem, took = run(script)
        if problem:
            print(f"{script.name}: FAILED ({problem})")
        for f in figures:
            rows.append((script.name, f))
            met = {True: "met", False: "NOT met", None: "—"}[f.get("met")]
            print(f"{f['figure']}: {fmt_value(f)} | limit: {f.get('limit') or '—'} | goal {f['goal']}: {met}"
                  f" | {script.name}, {took:.0f} s{'; ' + f['note'] if f.get('note') else ''}")
    print(f"done; {load()}")
    if args.markdown:
        print("\n| figure | value | limit it is compared with | goal | met | script |\n|---|---|---|---|---|---|")
        for name, f in rows:
            met = {True: "yes", False: "**no**", None: "—"}[f.get("met")]
            print(f"| {f['figure']} | {fmt_value(f)} | {f.get('limit') or '—'} | {f['goal']} | {met} | {name} |")
    return 0 if all(f.get("met") is not False for _, f in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
