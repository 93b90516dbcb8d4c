"""The browser step of a sign-in: a one-shot HTTP listener on 127.0.0.1 that catches the authorization server's
redirect back to the app (RFC 8252 loopback redirect) — see :mod:`desktop_agent.core.mcp.oauth`."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from urllib.parse import parse_qs, urlsplit

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP

CALLBACK_PATH = "/callback"


class SignInFailed(Exception):
    """The sign-in did not complete; the message says why in the user's words."""


_PAGE = ("<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
         "<body style='font-family:sans-serif;margin:3em'><h2>{title}</h2><p>{text}</p></body></html>")


class LoopbackListener:
    """A one-shot HTTP listener on 127.0.0.1 that catches the authorization server's redirect to
    ``http://127.0.0.1:<port>/callback`` and answers the browser with a short page. It never logs the query
    (it carries the authorization code)."""

    def __init__(self) -> None:
        self.port = 0
        self._server: asyncio.AbstractServer | None = None
        self._result: asyncio.Future[dict[str, str]] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def open(self, preferred_port: int = 0) -> LoopbackListener:
        self._result = asyncio.get_running_loop().create_future()
        for port in ([preferred_port] if preferred_port else []) + [0]:
            try:
                self._server = await asyncio.start_server(self._handle, "127.0.0.1", port)
                break
            except OSError:
                continue
        assert self._server is not None
        sockets = getattr(self._server, "sockets", None) or []
        self.port = int(sockets[0].getsockname()[1])
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 10.0)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 10.0)) not in (b"\r\n", b"\n", b""):
                pass
            parts = line.split(" ")
            target = urlsplit(parts[1] if len(parts) > 1 else "/")
            if parts[0] != "GET" or target.path != CALLBACK_PATH:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            query = {k: v[0] for k, v in parse_qs(target.query).items()}
            if "error" in query:
                title, text = "Sign-in declined", "The app was not signed in. You can close this tab."
            else:
                title, text = "Signed in", "You can close this tab and go back to Desktop Agent."
            body = _PAGE.format(title=title, text=text).encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n"
                         + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
            if self._result is not None and not self._result.done():
                self._result.set_result(query)
        except (OSError, TimeoutError, ValueError):
            pass
        finally:
            with contextlib.suppress(Exception):
                await writer.drain()
                writer.close()

    async def wait(self, timeout_s: float, cancel: threading.Event | None = None) -> dict[str, str]:
        """The redirect's query; SignInFailed when ``timeout_s`` passes or ``cancel`` is set first."""
        assert self._result is not None
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                step = min(0.2, max(0.0, deadline - time.monotonic()))
                with contextlib.suppress(TimeoutError):
                    return await asyncio.wait_for(asyncio.shield(self._result), step)
                if cancel is not None and cancel.is_set():
                    raise SignInFailed(QT_TRANSLATE_NOOP("McpOAuth", "the sign-in was cancelled; nothing was saved"))
                if time.monotonic() >= deadline:
                    raise TimeoutError
        except TimeoutError:
            raise SignInFailed(QT_TRANSLATE_NOOP(
                "McpOAuth", "the browser did not come back within {minutes} minutes").format(
                minutes=f"{timeout_s / 60:g}")) from None


def port_of(uri: str) -> int:
    with contextlib.suppress(ValueError):
        return urlsplit(uri).port or 0
    return 0
