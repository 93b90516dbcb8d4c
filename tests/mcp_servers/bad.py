"""Commands given as MCP servers that are not ones: ``python -m tests.mcp_servers.bad MODE`` with MODE ``garbage``
(prints lines that are not JSON-RPC on stdout and never answers), ``silent`` (reads stdin, never answers
initialize), ``exit`` (exits at once, saying why on stderr)."""

from __future__ import annotations

import sys
import time


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "exit"
    if mode == "garbage":
        for line in sys.stdin:
            print("Welcome to my server! Listening…", flush=True)
            print("{not json", flush=True)
            del line
        time.sleep(600)
    elif mode == "silent":
        for _line in sys.stdin:
            pass
        time.sleep(600)
    else:
        print("bad: missing configuration, exiting", file=sys.stderr, flush=True)
        sys.exit(3)


if __name__ == "__main__":
    main()
