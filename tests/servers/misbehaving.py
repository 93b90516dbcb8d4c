"""Servers that misbehave in the ways real addresses do, on 127.0.0.1, for tests: one that answers every request
with a fixed status and body (a web server, a proxy's error page, another API), and one that trickles its headers
one byte at a time and never finishes them."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class PageServer:
    """Answers every request with one fixed status, content type and body (a web server, a proxy, another API)."""

    def __init__(self, status: int, body: bytes, content_type: str):
        self.reply = (status, body, content_type)
        self.paths: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                owner.paths.append(self.path)
                status, body, ctype = owner.reply
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class TrickleServer:
    """Accepts connections, reads the request, then sends ``data`` one byte every ``interval_s`` seconds (and
    then more header lines, forever: its headers never end) until the client hangs up."""

    HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"

    def __init__(self, data: bytes = HEAD, interval_s: float = 0.2):
        self.data, self.interval_s = data, interval_s
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.sent = 0
        self.hung_up = threading.Event()
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)  # the request (small enough for one read)
            i = 0
            stream = self.data
            while not self._stop.is_set():
                if i == len(stream):
                    stream += b"X-Still-Coming: yes\r\n"
                try:
                    conn.sendall(stream[i : i + 1])
                except OSError:
                    self.hung_up.set()
                    return
                self.sent += 1
                i += 1
                if self._stop.wait(self.interval_s):
                    return

    def close(self) -> None:
        self._stop.set()
        self.sock.close()
