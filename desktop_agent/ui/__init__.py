"""The Qt window. Everything here renders core events and calls core; core never imports this package.

Entry point: :func:`desktop_agent.ui.application.run_gui`. Only :mod:`PySide6` and the light core
modules are imported before the window shows; the model clients, keyring, markdown-it and Pygments load
after it is up (the stages of :mod:`desktop_agent.ui.startup`).

Importing this package first applies :func:`guard_emit_refcount` (see there): every ``ui`` module, and
every test that imports one, is protected.
"""

from __future__ import annotations

import sys


def _leaked_singletons() -> list[object]:
    """The singletons this PySide6 build hands out without a new reference: ``True`` from
    ``SignalInstance.emit`` and ``None`` from every call that releases the GIL and returns nothing
    (``processEvents``, ``sendPostedEvents``, ``QEventLoop.exec``, ``QThread.quit``…) — PySide6 6.12.0."""
    from PySide6.QtCore import QCoreApplication, QObject, Signal

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    leaked: list[object] = []
    before = sys.getrefcount(True)
    for _ in range(8):
        probe.ping.emit()
    if sys.getrefcount(True) < before:
        leaked += [True, False]
    before = sys.getrefcount(None)
    for _ in range(8):
        QCoreApplication.sendPostedEvents()
    if sys.getrefcount(None) < before:
        leaked.append(None)
    probe.deleteLater()
    return leaked


def guard_emit_refcount() -> bool:
    """Work around a PySide6 6.12.0 bug that aborts the process on CPython < 3.12.

    ``Signal.emit()`` returns a *borrowed* ``True``, and void functions that release the GIL
    (``QCoreApplication.processEvents``, ``QEventLoop.exec``, ``QThread.quit``, ``QTest.qWait``…) return
    a borrowed ``None``: every call drops one reference the caller never had. ``True`` and ``None`` are
    not immortal before Python 3.12, so after a few thousand calls the interpreter dies with "Fatal
    Python error: bool_dealloc / none_dealloc" — from any thread, whatever is connected. The probe
    measures the leak once; each leaking singleton then gets a reference count so large it can never
    reach zero (exactly what CPython 3.12+ does for them). Returns True when the guard was applied;
    a harmless no-op on fixed PySide6 versions and newer Pythons."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return False
    try:
        leaked = _leaked_singletons()
    except Exception:  # noqa: BLE001 - no usable QtCore: nothing to guard
        return False
    if not leaked:
        return False
    import ctypes

    for obj in leaked:
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40
    return True


EMIT_GUARD_APPLIED = guard_emit_refcount()
