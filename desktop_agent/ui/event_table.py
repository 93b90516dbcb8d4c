"""The ONE table that sorts a turn's events: event type → the handlers of that type, in the order they were
added. The chat controller owns it; each widget that shows events says which method takes which type
(its ``routes()``), and the table calls those — no widget sorts events by type itself.

A type without handlers is looked up by its bases once (a subclass of an event reaches its handlers),
then remembered."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

Handler = Callable[[Any], None]


class EventTable:
    """``{event type: [handler, …]}``; :meth:`route` calls the handlers of one event's type. ``last``: the
    owner's own handlers, called after those added (the widgets draw an event before the owner acts on it)."""

    def __init__(self, routes: Iterable[Mapping[type, Handler]] = (), *, last: Mapping[type, Handler] | None = None):
        self._table: dict[type, list[Handler]] = {}
        self._last: dict[type, Handler] = dict(last or {})
        self._resolved: dict[type, tuple[Handler, ...]] = {}
        for mapping in routes:
            self.add_all(mapping)

    def add(self, kind: type, handler: Handler) -> None:
        self._table.setdefault(kind, []).append(handler)
        self._resolved.clear()

    def add_all(self, routes: Mapping[type, Handler]) -> None:
        for kind, handler in routes.items():
            self.add(kind, handler)

    def handlers(self, kind: type) -> tuple[Handler, ...]:
        found = self._resolved.get(kind)
        if found is None:
            found = ()
            for base in kind.__mro__:  # the type itself first, then a base that has handlers
                if base in self._table or base in self._last:
                    own = self._last.get(base)
                    found = (*self._table.get(base, ()), *((own,) if own is not None else ()))
                    break
            self._resolved[kind] = found
        return found

    def route(self, event: object) -> None:
        for handler in self.handlers(type(event)):
            handler(event)


def feed(routes: Mapping[type, Handler], *events: object) -> None:
    """Route ``events`` to one widget's ``routes()`` alone (a view shown without a controller, and tests)."""
    table = EventTable([routes])
    for event in events:
        table.route(event)
