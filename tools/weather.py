"""Current weather from Open-Meteo (free, no API key): the pattern for a tool that calls a web API.

Two requests over httpx with a short timeout:

1. the geocoding API turns a place name into coordinates
   (https://open-meteo.com/en/docs/geocoding-api — ``GET /v1/search?name=…`` → ``{"results": [...]}``);
2. the forecast API gives the current conditions there
   (https://open-meteo.com/en/docs — ``GET /v1/forecast?latitude=…&longitude=…&current=…`` →
   ``{"current": {...}, "current_units": {...}}``).

Failures (offline, timeout, an HTTP error, an unknown place) raise :class:`ToolError` with a sentence
the model can repeat to the user. The base URLs can be changed with the environment variables
``OPEN_METEO_GEOCODING_URL`` and ``OPEN_METEO_FORECAST_URL`` (a mirror, a self-hosted Open-Meteo, or a
local test server).
"""

from __future__ import annotations

import os
import threading
from typing import Annotated, Any, Literal

from pydantic import Field

from desktop_agent import ToolError, tool

GEOCODING_URL = "https://geocoding-api.open-meteo.com/v1/search"
FORECAST_URL = "https://api.open-meteo.com/v1/forecast"
#: Timeout of each HTTP request, in seconds.
HTTP_TIMEOUT_S = 8.0

#: The "current" variables asked for (Open-Meteo forecast API names).
CURRENT_VARIABLES = (
    "temperature_2m", "apparent_temperature", "relative_humidity_2m", "precipitation", "weather_code",
    "cloud_cover", "wind_speed_10m", "wind_direction_10m", "is_day",
)

#: WMO weather interpretation codes, as documented by Open-Meteo.
WEATHER_CODES = {
    0: "clear sky", 1: "mainly clear", 2: "partly cloudy", 3: "overcast",
    45: "fog", 48: "depositing rime fog",
    51: "light drizzle", 53: "moderate drizzle", 55: "dense drizzle",
    56: "light freezing drizzle", 57: "dense freezing drizzle",
    61: "slight rain", 63: "moderate rain", 65: "heavy rain",
    66: "light freezing rain", 67: "heavy freezing rain",
    71: "slight snowfall", 73: "moderate snowfall", 75: "heavy snowfall", 77: "snow grains",
    80: "slight rain showers", 81: "moderate rain showers", 82: "violent rain showers",
    85: "slight snow showers", 86: "heavy snow showers",
    95: "thunderstorm", 96: "thunderstorm with slight hail", 99: "thunderstorm with heavy hail",
}

_COMPASS = ("north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest")


def _get_json(url: str, params: dict[str, Any], service: str) -> dict[str, Any]:
    """GET ``url`` and return its JSON object; every failure becomes a ToolError naming ``service``."""
    import httpx  # imported when the tool runs, not when the app starts

    try:
        with httpx.Client(timeout=HTTP_TIMEOUT_S, follow_redirects=True,
                          headers={"User-Agent": "desktop-agent"}) as client:
            response = client.get(url, params=params)
    except httpx.TimeoutException:
        raise ToolError(
            f"the {service} did not answer within {HTTP_TIMEOUT_S:g} s; try again later."
        ) from None
    except httpx.HTTPError as exc:
        host = httpx.URL(url).host or url
        raise ToolError(
            f"can't reach the {service} at {host}: the computer seems to be offline or the service is "
            f"down ({type(exc).__name__}). Tell the user the weather is unavailable right now."
        ) from None
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.status_code != 200:
        reason = data.get("reason") if isinstance(data, dict) else None
        raise ToolError(f"the {service} answered HTTP {response.status_code}"
                        + (f": {reason}" if reason else ""))
    if not isinstance(data, dict):
        raise ToolError(f"the {service} sent an answer that is not a JSON object")
    return data


def _find_place(location: str) -> dict[str, Any]:
    """The best geocoding result for ``'Name'`` or ``'Name, region, country'``."""
    name, *qualifiers = [part.strip() for part in location.split(",") if part.strip()] or [""]
    if len(name) < 2:
        raise ToolError("give a place name of at least two letters, e.g. 'Paris'")
    data = _get_json(
        os.environ.get("OPEN_METEO_GEOCODING_URL") or GEOCODING_URL,
        {"name": name, "count": 10, "language": "en", "format": "json"},
        "Open-Meteo geocoding service",
    )
    results = [r for r in data.get("results") or [] if isinstance(r, dict) and "latitude" in r and "longitude" in r]
    if not results:
        raise ToolError(f"no place named '{location}' was found. Try the city name alone, e.g. 'Paris'.")
    wanted = [q.lower() for q in qualifiers]
    for place in results:
        known = [str(place.get(k, "")).lower() for k in ("country", "country_code", "admin1", "admin2", "admin3")]
        if all(any(q == k or (len(q) > 2 and q in k) for k in known if k) for q in wanted):
            return place
    return results[0]  # qualifiers matched nothing: the most relevant place; its full name is reported


def _place_label(place: dict[str, Any]) -> str:
    parts: list[str] = []
    for key in ("name", "admin1", "country"):
        value = str(place.get(key) or "").strip()
        if value and value not in parts:
            parts.append(value)
    return ", ".join(parts)


def _measure(current: dict[str, Any], units: dict[str, Any], key: str) -> str | None:
    value = current.get(key)
    if value is None:
        return None
    unit = str(units.get(key) or "").strip()
    return f"{value} {unit}".strip()


@tool(read_only=True, timeout_s=25)
def get_current_weather(
    location: Annotated[
        str,
        Field(description="The place: a city name, optionally followed by region and country, "
                          "e.g. 'Paris', 'Springfield, Illinois' or 'Lagos, Nigeria'."),
    ],
    unit: Annotated[
        Literal["celsius", "fahrenheit"],
        Field(description="Temperature unit; wind speed is given in km/h for celsius, mph for fahrenheit."),
    ] = "celsius",
    cancel: threading.Event | None = None,
) -> dict:
    """Get the current weather in a given location.

    Returns the place that was found, the local observation time, the conditions in words
    (e.g. "partly cloudy"), temperature, felt temperature, humidity, precipitation, cloud cover and
    wind. Needs an internet connection.
    """
    place = _find_place(location)
    if cancel is not None and cancel.is_set():  # the user pressed Stop between the two requests
        raise ToolError("cancelled")
    data = _get_json(
        os.environ.get("OPEN_METEO_FORECAST_URL") or FORECAST_URL,
        {
            "latitude": place["latitude"],
            "longitude": place["longitude"],
            "current": ",".join(CURRENT_VARIABLES),
            "timezone": "auto",
            "temperature_unit": unit,
            "wind_speed_unit": "mph" if unit == "fahrenheit" else "kmh",
        },
        "Open-Meteo weather service",
    )
    current = data.get("current")
    if not isinstance(current, dict):
        raise ToolError("the Open-Meteo weather service sent no current conditions for this place")
    units = data.get("current_units") if isinstance(data.get("current_units"), dict) else {}

    report: dict[str, Any] = {
        "location": _place_label(place),
        "latitude": place["latitude"],
        "longitude": place["longitude"],
    }
    if current.get("time"):
        zone = data.get("timezone_abbreviation") or data.get("timezone") or ""
        report["observed_at"] = f"{current['time']} {zone}".strip()
    code = current.get("weather_code")
    if isinstance(code, (int, float)):
        report["conditions"] = WEATHER_CODES.get(int(code), f"weather code {int(code)}")
    for label, key in (
        ("temperature", "temperature_2m"),
        ("feels_like", "apparent_temperature"),
        ("humidity", "relative_humidity_2m"),
        ("precipitation", "precipitation"),
        ("cloud_cover", "cloud_cover"),
    ):
        text = _measure(current, units, key)
        if text is not None:
            report[label] = text
    speed = _measure(current, units, "wind_speed_10m")
    if speed is not None:
        direction = current.get("wind_direction_10m")
        if isinstance(direction, (int, float)):
            speed += f" from the {_COMPASS[round(float(direction) / 45) % 8]}"
        report["wind"] = speed
    if current.get("is_day") in (0, 1):
        report["daytime"] = bool(current["is_day"])
    return report
