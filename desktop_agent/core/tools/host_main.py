"""The tool-host child: ``python -m desktop_agent.core.tools.host_main`` runs tool calls one at a time for the app.

Protocol (ours, JSON Lines): the app writes requests to the child's stdin, the child answers on the file
descriptor that was its stdout when it started. Before anything else the child points its own stdout at its
stderr (a capture file the app owns), so whatever a tool prints — Python ``print``, C code, a subprocess —
lands in that file and never in the protocol or the app's terminal.

- child → app, once loaded: ``{"ready": true, "pid": N}``
- app → child: ``{"op": "call", "id": K, "origin": [kind, where, attr], "arguments": {...}}``; kind ``file``
  (a tool module loaded by path, as the loader does) or ``module`` (an importable module).
- app → child: ``{"op": "cancel", "id": K}`` sets the ``cancel`` event the tool sees (a cooperative stop;
  the app kills the child if the tool does not return soon).
- child → app: ``{"id": K, "status": "ok", "text": "..."}`` or ``{"id": K, "status": "error", "message": "..."}``.

The child exits when its stdin closes (the app closed it, or the app died) and, on Linux, when the app's
process dies (``PR_SET_PDEATHSIG``), even while a tool holds the interpreter.
"""

from __future__ import annotations

import os
import sys


def _take_stdout() -> int:
    """A private copy of the protocol descriptor; fd 1 then writes into the capture file (fd 2)."""
    proto = os.dup(1)
    os.dup2(2, 1)
    return proto


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() == 1:  # the app already died before the call above
            os._exit(0)
    except Exception:  # noqa: BLE001 — the stdin watch still ends the child
        pass


def main() -> None:
    proto_fd = _take_stdout()
    _die_with_parent()
    import contextlib
    import json
    import logging
    import queue
    import threading
    from typing import Any

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    extra_path = os.environ.get("DESKTOP_AGENT_HOST_PATH")
    if extra_path:
        for entry in reversed(json.loads(extra_path)):
            if entry not in sys.path:
                sys.path.insert(0, entry)

    from desktop_agent.core.tools.host_run import ToolFinder, run_one

    proto = os.fdopen(proto_fd, "w", encoding="utf-8", buffering=1)
    write_lock = threading.Lock()

    def send(message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False)
        with write_lock:
            proto.write(line + "\n")
            proto.flush()

    calls: queue.Queue[dict[str, Any] | None] = queue.Queue()
    current: dict[Any, threading.Event] = {}

    def read() -> None:
        for line in sys.stdin:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("op") == "call":
                calls.put(message)
            elif message.get("op") == "cancel":
                stop = current.get(message.get("id"))
                if stop is not None:
                    stop.set()
        os._exit(0)  # the app closed the pipe or died: nothing left to do, whatever a tool is doing

    finder = ToolFinder()
    threading.Thread(target=read, name="host-stdin", daemon=True).start()
    send({"ready": True, "pid": os.getpid()})
    while True:
        request = calls.get()
        if request is None:
            break
        call_id = request.get("id")
        stop = threading.Event()
        current[call_id] = stop
        try:
            reply = run_one(finder, request.get("origin"), request.get("arguments") or {}, stop)
        finally:
            current.pop(call_id, None)
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):  # a tool may have closed or replaced them
                    stream.flush()
        reply["id"] = call_id
        send(reply)


if __name__ == "__main__":
    main()
