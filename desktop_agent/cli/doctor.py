"""``desktop-agent doctor``: what the app depends on, one line each with ✓ / ! / ✗ and the fix under a broken one
(the checks: :mod:`desktop_agent.core.doctor`). Exit status 1 when something is broken, 0 when it all works
(warnings — no display, no keyring while nothing needs one — do not count)."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from desktop_agent.cli.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE

MARKS = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "–"}
ASCII_MARKS = {"ok": "ok", "warn": "!!", "fail": "XX", "skip": "--"}


def _marks(stream: TextIO) -> dict[str, str]:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "".join(MARKS.values()).encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return ASCII_MARKS
    return MARKS


def run_doctor(args: argparse.Namespace) -> int:
    from desktop_agent.cli.output import Output, quiet_library_logs, write_failed
    from desktop_agent.core import doctor
    from desktop_agent.core.services import FlagError, Services

    quiet_library_logs()
    out = Output(sys.stdout)
    flags = {k: v for k, v in {"backend": args.backend, "ollama.host": args.host, "openai.base_url": args.base_url,
                                "model": args.model}.items() if v is not None}
    marks = _marks(sys.stdout)
    checks: list[doctor.Check] = []
    with Services(flags, getattr(args, "data_dir", None)) as services:
        try:
            _ = services.layered  # a bad flag value is a usage error
        except FlagError as exc:
            sys.stderr.write(f"desktop-agent doctor: error: {exc}\n")
            return EXIT_USAGE
        for check in doctor.run(services, mcp=not args.no_mcp):
            checks.append(check)
            out.write(f"{marks[check.status]} {check.area}: {check.text}\n")
            for line in check.details:
                out.write(f"    | {line}\n")
            if check.fix and check.status in (doctor.FAIL, doctor.WARN):
                out.write(f"    fix: {check.fix}\n")
            if out.closed:
                break
    failed = [c for c in checks if c.status == doctor.FAIL]
    if not out.closed:
        if failed:
            out.write(f"\n{len(failed)} problem{'s' if len(failed) != 1 else ''} found.\n")
        else:
            out.write("\nEverything the app needs works.\n")
    if out.error is not None:
        return write_failed(out, Output(sys.stderr))
    return EXIT_FAILED if failed else EXIT_OK
