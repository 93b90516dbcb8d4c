"""The Qt window. Everything here renders core events and calls core; core never imports this package.

Entry point: :func:`desktop_agent.ui.main_window.run_gui`. Only :mod:`PySide6` and the light core
modules are imported before the window shows; the model clients, keyring, markdown-it and Pygments load
after it is up (see ``MainWindow._late_init``).

Importing this package first applies :func:`guard_emit_refcount` (see there): every ``ui`` module, and
every test that imports one, is protected.
"""

from __future__ import annotations

import sys


def _emit_leaks_true() -> bool:
    """Whether ``SignalInstance.emit`` returns ``True`` without a new reference (PySide6 6.12.0)."""
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(8):
        probe.ping.emit()
    leaked = sys.getrefcount(True) < before
    probe.deleteLater()
    return leaked


def guard_emit_refcount() -> bool:
    """Work around a PySide6 6.12.0 bug: ``Signal.emit()`` returns a *borrowed* ``True``, so each call
    whose result is dropped decrements ``True``'s reference count. On CPython < 3.12 (``True`` is not
    immortal) the process aborts after a few thousand emits with "Fatal Python error: bool_dealloc:
    deallocating True or False" — from any thread, whatever is connected. When the probe sees the leak,
    ``True`` and ``False`` get a reference count so large they can never reach zero (what CPython 3.12+
    does for them anyway). Returns True when the guard was applied. Harmless no-op otherwise."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return False
    try:
        if not _emit_leaks_true():
            return False
    except Exception:  # no usable QtCore: nothing to guard
        return False
    import ctypes

    for obj in (True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40
    return True


EMIT_GUARD_APPLIED = guard_emit_refcount()
