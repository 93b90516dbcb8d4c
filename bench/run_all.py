"""Every benchmark figure in one run: one line per figure (now, limit, ratio, goal, met), the machine and its load.

    python bench/run_all.py [--only NAME ...] [--markdown] [--readme [PATH]]

Runs each figure script in ``bench/`` — a ``*.py`` file (not starting with ``_``, not this one) whose
source mentions ``--figures`` — as ``python bench/NAME.py --figures`` in its own process, one after the
other, and reads the JSON lines it prints (the convention is in ``bench/_figures.py`` and
``bench/README.md``). A script that fails is reported as such; the others still run. ``--markdown`` prints
the table; ``--readme`` writes it into ``README.md`` (or PATH) between the lines :data:`START` and
:data:`END`, so that the README's table is always one run of this script. Exit status: 0 when every goal is
met, 1 when one is not or a script failed, 2 when the README has no such section.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _figures import load, machine  # noqa: E402

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # every script, and the machine line, offscreen

#: the README section this script owns (everything between the two lines is replaced)
START = "<!-- bench/run_all.py: start (generated; do not edit by hand) -->"
END = "<!-- bench/run_all.py: end -->"

MET = {True: "met", False: "NOT met", None: "—"}


def figure_scripts() -> list[Path]:
    return [p for p in sorted(HERE.glob("*.py"))
            if not p.name.startswith("_") and p.name != Path(__file__).name and "--figures" in p.read_text()]


def run(script: Path, timeout_s: float = 1800) -> tuple[list[dict], str, float]:
    t0 = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, str(script), "--figures"], cwd=ROOT, capture_output=True,
                              text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return [], f"no result within {timeout_s:.0f} s", time.monotonic() - t0
    took = time.monotonic() - t0
    figures = []
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            try:
                figures.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    problem = ""
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        problem = f"exit {proc.returncode}: {last}"
    elif not figures:
        problem = "printed no figure"
    return figures, problem, took


def fmt_number(value: float) -> str:
    """As the script rounded it (up to 3 decimals below 100: a ratio of 1.052 must not read as 1.05)."""
    if isinstance(value, float) and not value.is_integer() and abs(value) < 100:
        return f"{value:,.3f}".rstrip("0").rstrip(".")
    return f"{value:,.0f}"


def now_text(f: dict) -> str:
    unit = f.get("unit") or ""
    joined = "" if unit in ("", "×", "/s", "%") else " "
    return f"{fmt_number(f['value'])}{joined}{unit}"


def ratio_text(f: dict) -> str:
    ratio = f.get("ratio")
    if ratio is None and f.get("unit") == "×":
        ratio = f["value"]
    return "—" if ratio is None else f"{fmt_number(ratio)}×"


def line_for(script: str, f: dict, took: float) -> str:
    """One figure, as run_all prints it."""
    note = f"; {f['note']}" if f.get("note") else ""
    return (f"{f['figure']}: now {now_text(f)} | limit: {f.get('limit') or '—'} | ratio {ratio_text(f)} | "
            f"goal {f['goal']}: {MET[f.get('met')]} | {script}, {took:.0f} s{note}")


def markdown(rows: list[tuple[str, dict]], failed: list[tuple[str, str]], header: list[str]) -> str:
    """The README's table: one row per figure (and per failed script), after the run's facts."""
    out = [*header, "",
           "| figure | now | limit it is compared with | ratio | goal | met | script |",
           "|---|---|---|---|---|---|---|"]
    for name, f in rows:
        met = {True: "yes", False: "**no**", None: "—"}[f.get("met")]
        cells = [f["figure"], now_text(f), f.get("limit") or "—", ratio_text(f), f["goal"], met, f"`{name}`"]
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    for name, problem in failed:
        out.append(f"| `{name}` did not run | — | — | — | — | **failed**: {problem.replace('|', '/')} | `{name}` |")
    return "\n".join(out)


def write_readme(path: Path, table: str) -> None:
    """Replace what lies between :data:`START` and :data:`END` in ``path`` by ``table``. Raises ValueError
    (nothing written) when the two lines are not there once each, in order."""
    text = path.read_text(encoding="utf-8")
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise ValueError(f"{path} has no section between {START!r} and {END!r}")
    head, rest = text.split(START, 1)
    _old, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{table}\n{END}{tail}", encoding="utf-8")


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"
    return (out.stdout.strip() or "?") + (" + changes" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", default=None, help="script names (without .py) to run")
    ap.add_argument("--markdown", action="store_true", help="also print the table as markdown")
    ap.add_argument("--readme", nargs="?", type=Path, const=ROOT / "README.md", default=None, metavar="PATH",
                    help="write the table into README.md (or PATH) between its run_all markers")
    args = ap.parse_args(argv)
    if args.readme is not None:  # before the long run: a README without the section is said at once
        text = args.readme.read_text(encoding="utf-8") if args.readme.is_file() else ""
        if START not in text or END not in text:
            print(f"{args.readme} has no section between {START!r} and {END!r}", file=sys.stderr)
            return 2
    scripts = [s for s in figure_scripts() if args.only is None or s.stem in args.only]
    unknown = sorted(set(args.only or []) - {s.stem for s in scripts})
    if unknown:
        print(f"no figure script named {', '.join(unknown)} in {HERE}", file=sys.stderr)
        return 2
    before = load()
    started = datetime.datetime.now(datetime.UTC)
    print(f"machine: {machine()}", flush=True)
    rows: list[tuple[str, dict]] = []
    failed: list[tuple[str, str]] = []
    for script in scripts:
        figures, problem, took = run(script)
        if problem:
            failed.append((script.name, problem))
            print(f"{script.name}: FAILED ({problem})", flush=True)
        for f in figures:
            rows.append((script.name, f))
            print(line_for(script.name, f, took), flush=True)
    after = load()
    print(f"done; {before} before, {after} after", flush=True)
    header = [f"`python bench/run_all.py` on {started:%Y-%m-%d %H:%M} UTC, commit {commit()}: "
              f"{machine().split(', load')[0]}; {before} before, {after} after."]
    table = markdown(rows, failed, header)
    if args.markdown:
        print("\n" + table)
    if args.readme is not None:
        write_readme(args.readme, table)
        print(f"wrote the table into {args.readme}")
    return 0 if not failed and all(f.get("met") is not False for _, f in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
