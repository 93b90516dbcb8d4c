"""Tools for the tool-host tests: each misbehaves in one way a user's tool can (imported by the host child by
module name, so they live at module level)."""

from __future__ import annotations

import ctypes
import enum
import os
import subprocess
import sys
import threading
import time

from pydantic import BaseModel

from desktop_agent import tool


class Unit(enum.Enum):
    celsius = "celsius"
    fahrenheit = "fahrenheit"


class Place(BaseModel):
    city: str
    country: str = "FR"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def where(place: Place, unit: Unit = Unit.celsius) -> dict:
    """Echo a nested model and an enum as the function received them."""
    return {"city": place.city, "country": place.country, "model": type(place).__name__, "unit": unit.value,
            "unit_type": type(unit).__name__}


@tool
def chatty(text: str) -> str:
    """Print to stdout and stderr, from Python and below it, then answer."""
    print(f"to stdout: {text}")
    print(f"to stderr: {text}", file=sys.stderr)
    os.write(1, b"raw fd 1\n")
    return f"said {text}"


@tool
def exit_now(code: int = 3) -> str:
    """Leave the process at once."""
    print("about to exit", flush=True)
    os._exit(code)


@tool
def system_exit() -> str:
    """Raise SystemExit."""
    raise SystemExit(5)


@tool
def segfault() -> str:
    """Crash the interpreter."""
    ctypes.string_at(0)
    return "unreachable"


@tool(timeout_s=60)
def spin() -> str:
    """Burn a core forever, ignoring any cancel."""
    print("spinning", flush=True)
    while True:
        pass


@tool
def pid() -> int:
    """The process id the tool runs in."""
    return os.getpid()


@tool
def polite_wait(cancel: threading.Event, seconds: float = 60.0) -> str:
    """Wait, but return as soon as cancel is set."""
    if cancel.wait(seconds):
        return "stopped politely"
    return "waited"


@tool
def sleepy(seconds: float = 60.0) -> str:
    """Sleep, ignoring cancel."""
    time.sleep(seconds)
    return "slept"


@tool
def background() -> int:
    """Start a process that goes on running after the call; its process id."""
    return subprocess.Popen(["sleep", "60"]).pid


def make_closure():
    @tool
    def inner() -> str:
        """Defined inside a function: the host cannot address it."""
        return f"in-process {os.getpid()}"

    return inner


@tool
def flood() -> str:
    """Print without end."""
    line = "x" * 4095 + "\n"
    while True:
        sys.stdout.write(line)
