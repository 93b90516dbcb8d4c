"""An SDK MCP server (stdio; ``--http PORT``: Streamable HTTP on 127.0.0.1) whose tools ask the user: with a
2026-07-28 client the SDK turns the question into an ``input_required`` result, with an older one into an
``elicitation/create`` request. ``--ttl MS``: its tool list may be cached that long (``ttlMs``); ``--marker FILE``:
the tool ``grow`` (adds ``added``) writes nothing, the list's change is only seen once the cache is stale.

- ``book_table``: asks for a name (required), the party size (integer 1..12, default 2), a seating (enum) and
  whether it is for a birthday (boolean); answers what it got, or that the user declined / cancelled.
- ``sign_in``: asks for a password (a sensitive field) and says how long it was (never the password).
- ``open_page``: a URL-mode question (says whether the user agreed to open the page).
- ``capabilities``: what the client declared it can do.

``sign_in`` and ``open_page`` return the ``input_required`` result themselves (the SDK's own helpers cannot send a
URL-mode or ``writeOnly`` question over 2026-07-28).
"""

from __future__ import annotations

import sys
from typing import Annotated, Literal

from mcp.server.caching import CacheHint
from mcp.server.elicitation import AcceptedElicitation, DeclinedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult, InputRequiredResult
from pydantic import BaseModel, Field


def _arg(flag: str) -> str | None:
    return sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv else None


_ttl = _arg("--ttl")
server = MCPServer("asking", cache_hints={"tools/list": CacheHint(ttl_ms=int(_ttl))} if _ttl else None)


class Booking(BaseModel):
    name: str = Field(title="Name", description="Who the table is for")
    party: int = Field(2, title="Party size", ge=1, le=12)
    seating: Literal["inside", "terrace", "bar"] = Field("inside", title="Seating")
    birthday: bool = Field(False, title="Birthday")


def ask_booking() -> Elicit[Booking]:
    return Elicit("Who is the table for?", Booking)


@server.tool()
async def book_table(
    restaurant: str, booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]
) -> str:
    """Book a table at the restaurant (asks the user for the details)."""
    if isinstance(booking, AcceptedElicitation):
        b = booking.data
        return (f"booked {restaurant} for {b.name}, {b.party} people, {b.seating}"
                f"{', birthday' if b.birthday else ''}")
    if isinstance(booking, DeclinedElicitation):
        return "the user declined to give the booking details"
    return "the user cancelled the booking"


def _answer(ctx: Context, key: str) -> ElicitResult | None:
    """The user's answer to question ``key`` when the client retried with it (2026-07-28 ``input_required``)."""
    answer = (ctx.input_responses or {}).get(key)
    return answer if isinstance(answer, ElicitResult) else None


@server.tool()
async def sign_in(account: str, ctx: Context) -> str | InputRequiredResult:
    """Sign in to the demo service (asks for the password: a sensitive field)."""
    answer = _answer(ctx, "password")
    if answer is None:
        schema = {"type": "object", "required": ["password"], "properties": {
            "password": {"type": "string", "title": "Password", "format": "password", "writeOnly": True}}}
        return InputRequiredResult(input_requests={"password": ElicitRequest(params=ElicitRequestFormParams(
            message="Your password for the demo service", requested_schema=schema))})
    if answer.action == "accept" and answer.content:
        return f"signed in {account} with a password of {len(str(answer.content.get('password')))} characters"
    return f"no password given ({answer.action})"


@server.tool()
async def open_page(ctx: Context) -> str | InputRequiredResult:
    """Ask the user to open a page in the browser (a URL-mode question)."""
    answer = _answer(ctx, "page")
    if answer is None:
        return InputRequiredResult(input_requests={"page": ElicitRequest(params=ElicitRequestURLParams(
            message="Confirm your e-mail address on the demo site", url="https://example.com/confirm?code=1"))})
    return f"url question: {answer.action}"


@server.tool()
async def capabilities(ctx: Context) -> str:
    """What the client says it can do (its capabilities' names)."""
    caps = ctx.client_capabilities
    if caps is None:
        return "none"
    found = caps.model_dump(exclude_none=True)
    return ", ".join(sorted(found)) + "; elicitation: " + ", ".join(sorted(found.get("elicitation") or {}))


def added() -> str:
    """A tool that exists after grow."""
    return "added here"


@server.tool()
async def grow() -> str:
    """Add the tool 'added' without telling the client (it sees it once its cached list is stale)."""
    server.add_tool(added)
    return "grown"


if __name__ == "__main__":
    print("asking server starting", file=sys.stderr, flush=True)
    port = _arg("--http")
    if port:
        server.run("streamable-http", host="127.0.0.1", port=int(port))
    else:
        server.run()
