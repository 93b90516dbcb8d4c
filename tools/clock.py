"""Date and time tools.

A tool module is a plain Python file: decorate functions with ``@tool``, give every parameter a type
hint and a description (``Annotated[..., Field(description=...)]`` or the docstring's ``Args:``
section), and write the docstring's first paragraph for the model — it is the tool's description.
Raise ``ToolError`` (or any exception) to tell the model what went wrong. ``@tool(read_only=True)`` says the
tool changes nothing (MCP clients of ``desktop-agent mcp serve`` see it as a read-only tool).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field

from desktop_agent import ToolError, tool


def _now(zone: dt.tzinfo | None = None) -> dt.datetime:
    """The current time, aware (local time zone when ``zone`` is None). Tests replace this."""
    return dt.datetime.now(zone).astimezone(zone)


# English names on purpose: strftime("%A") follows the process locale, which Qt sets from the desktop.
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")


def _utc_offset(moment: dt.datetime) -> str:
    offset = moment.utcoffset() or dt.timedelta(0)
    sign = "-" if offset < dt.timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


@tool(read_only=True)
def today(
    timezone: Annotated[
        str | None,
        Field(description="IANA time zone name such as 'Europe/Paris' or 'America/New_York'. "
                          "Leave it out for the user's own time zone."),
    ] = None,
) -> dict:
    """Get the current date and the time now, with the time zone.

    Use it for any question about today's date, the day of the week today, or the time now.
    Returns the ISO 8601 timestamp and a human-readable sentence. A time zone it does not know is said in a
    ``note``, with the user's own date and time (a small model fills the time zone in with whatever comes to
    it, even this parameter's description: the date is still what was asked).
    """
    zone: dt.tzinfo | None = None
    note = ""
    if timezone and timezone.strip():
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            zone = ZoneInfo(timezone.strip())
        except (ZoneInfoNotFoundError, ValueError):
            note = (f"unknown time zone '{timezone.strip()[:80]}' (use an IANA name such as 'Europe/Paris'); "
                    "this is the user's own time")
    now = _now(zone)
    offset = _utc_offset(now)
    zone_name = timezone.strip() if zone is not None else (now.tzname() or "local time")
    weekday = _WEEKDAYS[now.weekday()]
    out = {
        "iso": now.isoformat(timespec="seconds"),
        "date": now.date().isoformat(),
        "time": now.strftime("%H:%M:%S"),
        "weekday": weekday,
        "timezone": zone_name,
        "utc_offset": offset,
        "text": f"{weekday}, {now.day} {_MONTHS[now.month - 1]} {now.year}, "
                f"{now:%H:%M} {zone_name} (UTC{offset})",
    }
    if note:
        out["note"] = note
    return out


@tool(read_only=True)
def day_of_week(
    date: Annotated[str, Field(description="A calendar date as YYYY-MM-DD, e.g. '2024-02-29'.")],
) -> str:
    """Tell which day of the week (the weekday, Monday to Sunday) a date falls on.

    Dates follow the proleptic Gregorian calendar, years 1 to 9999.
    """
    text = date.strip()
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise ToolError(f"'{date}' is not a valid date; write it as YYYY-MM-DD, e.g. 2024-02-29.") from None
    return f"{day.isoformat()} is a {_WEEKDAYS[day.weekday()]}."
