"""The command line's sub-commands, over the same core as the window (``app.py`` wires them up).

- :mod:`.parser`: the ``chat``, ``tools`` and ``history`` argument parsers, their argument types and help texts.
- :mod:`.chat`: ``desktop-agent chat``: settings, store, chat id and session set-up, the stdin loop.
- :mod:`.turn`: one turn on a worker thread (Ctrl+C cancels it), printed as text or JSON Lines.
- :mod:`.output`: the output stream that never raises, line helpers, the "can't write stdout" report.
- :mod:`.errors`: exit codes, usage errors and the one terminal line for an error.
- :mod:`.tools`: ``desktop-agent tools``.
- :mod:`.history`: ``desktop-agent history …``.

Importing this package (and :mod:`.parser`) costs only ``argparse``: each command imports what it needs.
"""
