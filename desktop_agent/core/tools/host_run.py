"""Running one call by a tool's address (:func:`run_one`; the address is :func:`~.origin.origin_of`): the host
child's half of the tool host."""

from __future__ import annotations

import importlib
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from desktop_agent.core.tools.decorator import ToolError
from desktop_agent.core.tools.definition import Tool

log = logging.getLogger(__name__)


class ToolFinder:
    """Tools by origin, each module loaded once — a tool file is loaded again when it changed on disk (the app
    reloaded its tools) — the host child keeps one."""

    def __init__(self) -> None:
        self._tools: dict[tuple[str, str, str], tuple[Tool, int]] = {}
        self._files: dict[str, int] = {}  # tool file → its modification time when loaded

    def find(self, origin: Any) -> Tool:
        """The :class:`Tool` at ``origin``; raises ``LookupError`` with a readable reason."""
        try:
            kind, where, attr = (str(part) for part in origin)
        except (TypeError, ValueError):
            raise LookupError(f"not a tool address: {origin!r}") from None
        key = (kind, where, attr)
        version = _mtime(where) if kind == "file" else 0
        cached = self._tools.get(key)
        if cached is not None and cached[1] == version:
            return cached[0]
        if kind == "file":
            from desktop_agent.core.tools.loader import load_module_file, module_name_for

            module = sys.modules.get(module_name_for(Path(where)))
            if module is None or self._files.get(where) != version:
                module, problem = load_module_file(Path(where))
                if module is None:
                    raise LookupError(problem or f"{where}: cannot be loaded")
                self._files[where] = version
        elif kind == "module":
            module = importlib.import_module(where)
        else:
            raise LookupError(f"unknown kind of tool address: {kind!r}")
        fn = getattr(module, attr, None)
        if not callable(fn):
            raise LookupError(f"{where} has no function {attr!r} any more")
        found = Tool.from_function(fn)
        self._tools[key] = (found, version)
        return found


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def run_one(finder: ToolFinder, origin: Any, arguments: dict[str, Any], stop: threading.Event) -> dict[str, Any]:
    """Run one call in this process; the reply as the protocol sends it: ``{"status": "ok", "text": ...}`` or
    ``{"status": "error", "message": ...}`` (the message as the model reads it). Never raises, not even for a
    tool's ``SystemExit``."""
    from desktop_agent.core.tools.results import describe_exception, format_validation_error, result_to_text

    try:
        found = finder.find(origin)
    except BaseException as exc:  # a module that fails to load, or exits while loading
        log.warning("tool host: cannot load %s: %s", origin, exc, exc_info=True)
        return {"status": "error", "message": f"the tool could not be loaded in the tool host: "
                                              f"{describe_exception(exc)}"}
    try:
        kwargs = found.prepare(arguments)
    except ValidationError as exc:
        return {"status": "error", "message": format_validation_error(found.name, exc)}
    try:
        value = found.invoke(kwargs, stop)
    except ToolError as exc:  # the tool's own message, the call's result: no line of its own in what it printed
        log.debug("tool %s: %s", found.name, exc)
        return {"status": "error", "message": describe_exception(exc)}
    except BaseException as exc:  # SystemExit, KeyboardInterrupt too: the host carries on
        log.info("tool %s raised", found.name, exc_info=True)
        return {"status": "error", "message": describe_exception(exc)}
    try:
        return {"status": "ok", "text": result_to_text(value)}
    except Exception as exc:  # noqa: BLE001
        return {"status": "error", "message": f"tool '{found.name}' returned a value that cannot be sent as "
                                              f"text ({type(exc).__name__}: {exc})"}
