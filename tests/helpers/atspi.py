"""A real accessibility bus for a test: a private D-Bus session, the AT-SPI bus in it (``at-spi2-core``'s
launcher and registry), an X server (Xvfb) — and plain ``dbus-send`` calls that read the accessible tree an app
puts on that bus, the way a screen reader (Orca) reads it, and a listener for its events (Qt's D-Bus module, as
Orca's is one). Nothing here is imported by the app.

AT-SPI in short: the session bus's ``org.a11y.Bus`` gives the accessibility bus's address; on it, the registry's
root (``org.a11y.atspi.Registry`` at ``/org/a11y/atspi/accessible/root``) has the apps as children; every
object answers ``org.a11y.atspi.Accessible`` (``GetChildren``, ``GetRole``, ``GetState``, property ``Name``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from PySide6.QtCore import SLOT, QObject, Slot
from PySide6.QtDBus import QDBusConnection, QDBusMessage, QDBusVariant

LAUNCHERS = ("/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher")
ACCESSIBLE = "org.a11y.atspi.Accessible"
ROOT = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
#: AtspiStateType bits (at-spi2-core's atspi-constants.h)
STATE_FOCUSABLE, STATE_SHOWING, STATE_VISIBLE = 11, 25, 30


def missing_tools() -> list[str]:
    """What this machine lacks for a real accessibility bus (empty: all there)."""
    missing = [t for t in ("dbus-daemon", "dbus-send", "Xvfb") if shutil.which(t) is None]
    if launcher() is None:
        missing.append("at-spi-bus-launcher (apt at-spi2-core)")
    return missing


def launcher() -> str | None:
    return next((p for p in LAUNCHERS if os.access(p, os.X_OK)), None)


def need_tools() -> None:
    """Skip the test without the tools — or fail, where the run expects them (``DESKTOP_AGENT_EXPECT_TOOLS``,
    set by scripts/test.sh and CI): a machine that should read the tree must not skip silently."""
    missing = missing_tools()
    if missing:
        why = "no AT-SPI bus on this machine: missing " + ", ".join(missing)
        if os.environ.get("DESKTOP_AGENT_EXPECT_TOOLS"):
            pytest.fail(f"{why}, and DESKTOP_AGENT_EXPECT_TOOLS is set", pytrace=False)
        pytest.skip(why)


@dataclass
class Ref:
    """An accessible object on the bus: the app's bus name and the object's path."""

    bus: str
    path: str


@dataclass
class Node:
    ref: Ref
    name: str
    role: int
    states: set[int]
    depth: int
    children: list[Node] = field(default_factory=list)

    @property
    def focusable_and_showing(self) -> bool:
        return STATE_FOCUSABLE in self.states and STATE_SHOWING in self.states

    def all(self) -> Iterator[Node]:
        yield self
        for c in self.children:
            yield from c.all()


class A11yBus:
    """The accessibility bus at ``address``, read with ``dbus-send``."""

    def __init__(self, address: str):
        self.address = address

    def call(self, ref: Ref, method: str, *args: str, timeout: float = 20) -> str:
        proc = subprocess.run(["dbus-send", f"--bus={self.address}", "--print-reply", f"--dest={ref.bus}",
                               "--reply-timeout=10000", ref.path, method, *args],
                              capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"{method} on {ref}: {proc.stderr.strip()}")
        return proc.stdout

    def children(self, ref: Ref) -> list[Ref]:
        out = self.call(ref, f"{ACCESSIBLE}.GetChildren")
        return [Ref(b, p) for b, p in re.findall(r'string "([^"]*)"\s+object path "([^"]*)"', out)]

    def name(self, ref: Ref) -> str:
        out = self.call(ref, "org.freedesktop.DBus.Properties.Get", f"string:{ACCESSIBLE}", "string:Name")
        found = re.search(r'variant\s+string "(.*)"\s*$', out, re.S)
        return found.group(1) if found else ""

    def find(self, tree: Node, name: str) -> Ref:
        """The first object under ``tree`` named ``name``."""
        found = next((n.ref for n in tree.all() if n.name == name), None)
        assert found is not None, f"no {name!r} on the accessibility bus"
        return found

    def role(self, ref: Ref) -> int:
        found = re.search(r"uint32 (\d+)", self.call(ref, f"{ACCESSIBLE}.GetRole"))
        return int(found.group(1)) if found else -1

    def states(self, ref: Ref) -> set[int]:
        words = [int(n) for n in re.findall(r"uint32 (\d+)", self.call(ref, f"{ACCESSIBLE}.GetState"))]
        return {i + 32 * k for k, word in enumerate(words) for i in range(32) if word >> i & 1}

    def apps(self) -> list[tuple[Ref, str]]:
        return [(ref, self.name(ref)) for ref in self.children(Ref(*ROOT))]

    def tree(self, ref: Ref, depth: int = 0, max_depth: int = 40, max_children: int = 60) -> Node:
        """The objects under ``ref`` (lists' first ``max_children`` items)."""
        node = Node(ref, self.name(ref), self.role(ref), self.states(ref), depth)
        if depth < max_depth:
            for child in self.children(ref)[:max_children]:
                with suppress(RuntimeError):  # an object gone while it was read (a tooltip, a timer's label)
                    node.children.append(self.tree(child, depth + 1, max_depth, max_children))
        return node


def _wait(what: str, check, timeout: float = 20.0):
    end = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < end:
        try:
            result = check()
            if result:
                return result
        except Exception as exc:  # noqa: BLE001 — not up yet: try again
            last = exc
        time.sleep(0.1)
    raise AssertionError(f"{what} did not come up in {timeout:.0f} s ({last})")


@dataclass
class Desktop:
    """A private session bus with the AT-SPI bus, and an X display: ``env`` for an app to run in it."""

    env: dict[str, str]
    a11y: A11yBus


@contextmanager
def desktop(tmp: Path) -> Iterator[Desktop]:
    """Start dbus-daemon (session), at-spi-bus-launcher in it, and Xvfb; stop them afterwards."""
    procs: list[subprocess.Popen] = []
    runtime = tmp / "runtime"
    runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "AT_SPI_BUS_ADDRESS")}
    env["XDG_RUNTIME_DIR"] = str(runtime)
    try:
        bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        procs.append(bus)
        assert bus.stdout is not None
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().strip()
        spi = launcher()
        assert spi is not None
        procs.append(subprocess.Popen([spi, "--launch-immediately"], env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))

        def a11y_address() -> str:
            out = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.a11y.Bus", "/org/a11y/bus",
                                  "org.a11y.Bus.GetAddress"], capture_output=True, text=True, env=env, timeout=10)
            found = re.search(r'string "([^"]+)"', out.stdout)
            return found.group(1) if found else ""

        address = _wait("the AT-SPI bus", a11y_address)
        read, write = os.pipe()
        xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        procs.append(xvfb)
        os.close(write)
        with os.fdopen(read) as f:
            display = f.readline().strip()
        assert display, "Xvfb gave no display number"
        env["DISPLAY"] = f":{display}"
        yield Desktop(env, A11yBus(address))
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if bus_launcher_left := [p for p in procs if p.poll() is None]:
            raise AssertionError(f"left running: {bus_launcher_left}")


def find_app(a11y: A11yBus, name: str, timeout: float = 30.0) -> Ref:
    """The app called ``name`` once it is on the bus."""
    def found() -> Ref | None:
        return next((ref for ref, n in a11y.apps() if n == name), None)

    return _wait(f"the app {name!r} on the accessibility bus", found, timeout)


class Listener(QObject):
    """An AT-SPI event listener in this process (as Orca is one): registered with the registry for
    ``events`` (e.g. ``object:announcement``), it keeps the ``Announcement`` signals' texts in ``heard``."""

    def __init__(self, address: str, events: tuple[str, ...] = ("object:announcement",)):
        super().__init__()
        self.heard: list[str] = []
        self.conn = QDBusConnection.connectToBus(address, f"a11y-listener-{id(self)}")
        assert self.conn.isConnected(), self.conn.lastError().message()
        ok = self.conn.connect("", "", "org.a11y.atspi.Event.Object", "Announcement", self,
                               SLOT("_announced(QDBusMessage)"))
        assert ok, self.conn.lastError().message()
        for event in events:
            call = QDBusMessage.createMethodCall(ROOT[0], "/org/a11y/atspi/registry", "org.a11y.atspi.Registry",
                                                 "RegisterEvent")
            call.setArguments([event])
            reply = self.conn.call(call)
            assert reply.type() == QDBusMessage.MessageType.ReplyMessage, reply.errorMessage()

    @Slot(QDBusMessage)
    def _announced(self, message: QDBusMessage) -> None:
        args = message.arguments()
        data = args[3] if len(args) > 3 else None
        if isinstance(data, QDBusVariant):
            data = data.variant()
        self.heard.append(str(data))

    def close(self) -> None:
        QDBusConnection.disconnectFromBus(self.conn.name())
