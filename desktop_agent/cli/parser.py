"""The argument parsers of ``desktop-agent chat``, ``tools`` and ``history``: their options, argument types
(a bad value is a usage error that names the flag) and help texts. Only ``argparse`` is imported here; the
types import the settings checks when they run."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

CHAT_EPILOG = """\
Without -p, chat reads one message per line from stdin until "bye" (or "exit", "quit", end of input).

defaults (saved settings replace them; flags override both):
  --backend ollama              --model llama3.2 (ollama) / gpt-4o-mini (openai)
  --host http://localhost:11434 --base-url https://api.openai.com/v1
  --timeout 300 (ollama) / 60 (openai) seconds without an answer before the turn fails
  --max-steps 8                 --temperature 0          --tool-choice auto

environment:
  OLLAMA_HOST         the Ollama address, like --host (":PORT" means 127.0.0.1:PORT)
  OPENAI_API_KEY      the API key for --backend openai (a key saved by the window is used first)
  DESKTOP_AGENT_HOME  keep settings, chats and logs under this folder, like --data-dir

output:
  the answer on stdout; errors, notices and "[stopped]" on stderr. --events: JSON Lines on stdout,
  the first line {"type": "Chat", "id": "<chat id>", "new": true|false}, then one event per line.

exit status:
  0 answered (a session ended with bye or end of input), 1 a turn failed (one line on stderr),
  2 bad usage, 130 stopped with Ctrl+C.
"""


# ---- chat and tools ---------------------------------------------------------------------------------


def _nonempty(what: str):
    def check(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{what} is empty")
        return text

    return check


def _number(lo: float | None, hi: float | None, *, integer: bool = False, above: bool = False):
    kind = "a whole number" if integer else "a number"

    def check(text: str) -> float | int:
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {kind}") from None
        if value != value or value in (float("inf"), float("-inf")):  # NaN; ints of any size
            raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
        if (lo is not None and (value <= lo if above else value < lo)) or (
                hi is not None and value > hi):
            if above:
                raise argparse.ArgumentTypeError(f"must be more than {lo:g}, not {text}")
            raise argparse.ArgumentTypeError(f"must be from {lo:g} to {hi:g}, not {text}")
        return value

    return check


def _host_url(text: str) -> str:
    from desktop_agent.core.urls import clean_ollama_host

    try:
        return clean_ollama_host(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(clean_message(str(exc))) from None


def _base_url(text: str) -> str:
    from desktop_agent.core.urls import clean_base_url

    try:
        return clean_base_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(clean_message(str(exc))) from None


def clean_message(text: str) -> str:
    """A settings validation message as one line, without pydantic's "Value error, " prefix."""
    return " ".join(text.replace("Value error, ", "").split())


def add_chat_parser(sub: argparse._SubParsersAction, parents: Sequence[argparse.ArgumentParser] = ()) -> None:
    p = sub.add_parser(
        "chat", help="chat in the terminal", description="Chat with the agent in the terminal.",
        epilog=CHAT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter, parents=list(parents),
    )
    p.add_argument("--backend", choices=["ollama", "openai"], help="which server to talk to (default ollama)")
    p.add_argument("--host", metavar="URL", type=_host_url,
                   help="Ollama host (default http://localhost:11434, or OLLAMA_HOST)")
    p.add_argument("--base-url", metavar="URL", type=_base_url,
                   help="OpenAI-compatible base URL, e.g. http://localhost:8080/v1")
    p.add_argument("--model", metavar="NAME", type=_nonempty("the model name"),
                   help="model name (default llama3.2 / gpt-4o-mini)")
    p.add_argument("--no-api-key", action="store_true",
                   help="the OpenAI-compatible server needs no API key (local servers on 127.0.0.1 never do)")
    p.add_argument("--timeout", type=_number(0, None, above=True), metavar="SECONDS",
                   help="how long to wait for the server's data, first and next (default: the saved waits, "
                        "300 s for the first data, 60 s between data)")
    p.add_argument("--system", metavar="TEXT", help="system prompt")
    p.add_argument("--temperature", type=_number(0, 2), metavar="X", help="sampling temperature, 0 to 2 (default 0)")
    p.add_argument("--max-steps", type=_number(1, 100, integer=True), metavar="N",
                   help="most model calls per turn, 1 to 100 (default 8)")
    p.add_argument(
        "--tool-choice",
        metavar="auto|required|none|NAME",
        type=_nonempty("the tool choice"),
        help="tool choice for the first model call of each turn (default auto; Ollama has no tool "
        "choice: NAME offers only that tool, required is like auto)",
    )
    p.add_argument("--chat", metavar="ID", type=_nonempty("the chat id"),
                   help="continue a saved chat (an id or a unique prefix), with its own model and system prompt")
    p.add_argument("--preset", metavar="NAME", type=_nonempty("the preset name"),
                   help="start the chat from a preset (Coder, Writer, Researcher, or one of yours from Settings → "
                        "Presets): its system prompt, model, temperature and tools; flags given win")
    p.add_argument(
        "--tools-dir", action="append", default=[], metavar="DIR", help="also load tools from DIR (repeatable)"
    )
    p.add_argument("--no-tools", action="store_true", help="offer no tools to the model")
    p.add_argument("--allow-tool", action="append", default=[], metavar="NAME",
                   help="allow tool NAME without asking, for this run (repeatable); without a terminal to ask "
                   "(-p with piped input, --events) tools that need approval are otherwise denied")
    p.add_argument("--no-mcp", action="store_true", help="start none of the configured MCP servers")
    p.add_argument("-p", "--prompt", metavar="TEXT", type=_nonempty("the prompt"),
                   help="run one turn, print the answer and exit")
    p.add_argument("--events", action="store_true", help="print events as JSON Lines instead of plain text")
    p.add_argument("--attach", action="append", default=[], metavar="FILE",
                   help="attach FILE to the first message (repeatable): a text or code file or a PDF goes in as "
                   "its text, an image as an image (for models that can see)")
    p.set_defaults(_parser=p)


def add_tools_parser(sub: argparse._SubParsersAction, parents: Sequence[argparse.ArgumentParser] = ()) -> None:
    p = sub.add_parser("tools", help="list the tools the agent can use", description="List loaded tools.",
                       parents=list(parents))
    p.add_argument("--tools-dir", action="append", default=[], metavar="DIR", help="also load tools from DIR")
    p.add_argument("--no-mcp", action="store_true",
                   help="leave out the configured MCP servers' tools (they are started to list them)")
    learned = p.add_mutually_exclusive_group()
    learned.add_argument("--learned", action="store_true",
                         help="instead: what the app learned about each server and model (e.g. tools off for a model "
                              "that answered nothing when offered them)")
    learned.add_argument("--forget-learned", nargs="?", const="", default=None, metavar="MODEL",
                         help="forget what was learned about MODEL on every server (no MODEL: about all); its next "
                              "chat offers tools again")
    p.set_defaults(_parser=p)


ASK_EPILOG = """\
Bind `desktop-agent ask` to a keyboard shortcut in your desktop's settings (GNOME: Settings → Keyboard →
Custom Shortcuts; KDE: System Settings → Shortcuts → Custom Shortcuts): the quick-ask window opens wherever
you are. With the app running, the request goes to it (one app, one store); otherwise it starts.

keys: Enter sends; Enter on an empty line or Ctrl+Enter opens the chat in the main window; Esc stops or closes.
"""


def add_ask_parser(sub: argparse._SubParsersAction, parents: Sequence[argparse.ArgumentParser] = ()) -> None:
    p = sub.add_parser("ask", help="open the quick-ask window (bind it to a keyboard shortcut)",
                       description="Open the small quick-ask window: one line to type in, the answer below.\n"
                                   "The chat is saved like any other and opens in the main window on request.",
                       epilog=ASK_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                       parents=list(parents))
    p.add_argument("text", nargs="*", metavar="TEXT", help="a question to ask at once (optional)")
    p.set_defaults(_parser=p)


# ---- history ----------------------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def add_history_parser(subparsers: argparse._SubParsersAction,
                       parents: Sequence[argparse.ArgumentParser] = ()) -> argparse.ArgumentParser:
    """Add the ``history`` sub-command (with list/search/show/export/import) to ``subparsers``.
    ``parents``: parsers whose options every level accepts (``--data-dir``)."""
    parents = list(parents)
    parser = subparsers.add_parser(
        "history",
        help="list, search, show, export and import saved chats",
        description="Saved chats: list, search, show, export and import. ID may be a unique prefix of a chat id.",
        parents=parents,
    )
    sub = parser.add_subparsers(dest="history_command", metavar="{list,search,show,export,import}")

    p = sub.add_parser("list", help="saved chats, most recent first", parents=parents)
    p.add_argument("--limit", type=_positive_int, default=50, help="how many chats (default 50)")
    p.add_argument("--offset", type=_non_negative_int, default=0, help="skip this many chats first")
    p.add_argument("--json", action="store_true", help="print JSON (full ids, epoch-second times)")

    p = sub.add_parser("search", help="full-text search over every message of every chat", parents=parents)
    p.add_argument("text", nargs="+", help='words that must all appear; "quote" a phrase')
    p.add_argument("--limit", type=_positive_int, default=50, help="how many messages (default 50)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("show", help="print a chat as Markdown", parents=parents)
    p.add_argument("id", metavar="ID")
    p.add_argument("--tools", action="store_true",
                   help="print the chat's tool call audit instead: time, tool, decision and who made it, status, "
                   "duration, arguments")

    p = sub.add_parser("export", help="export chats to Markdown, JSON or a standalone HTML page", parents=parents,
                       description="Export one chat, several (one file holding them all) or --all. JSON keeps every "
                                   "branch and imports back losslessly; Markdown and HTML show the branch shown.")
    p.add_argument("id", metavar="ID", nargs="*", help="the chats to export (a unique prefix of each id)")
    p.add_argument("--all", action="store_true", help="export every saved chat")
    p.add_argument("--format", choices=("md", "json", "html"), default="md",
                   help="md (default), json (lossless, re-importable) or html (a page that opens offline)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (replaced atomically) instead of stdout")

    p = sub.add_parser(
        "import",
        help="import chats: a desktop-agent JSON export, a chat_*.json of the chat script, ChatGPT's "
             "conversations.json or an Open WebUI export",
        description="Import chats. The whole file is checked first: a malformed file imports nothing and the "
                    "error names the wrong entry. Importing the same file again adds nothing; a later export of "
                    "the same chats adds only their new messages.",
        parents=parents,
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--dry-run", action="store_true", help="only say what would be imported")

    for child in sub.choices.values():
        child.set_defaults(_parser=child)
    parser.set_defaults(_history_parser=parser, _parser=parser)
    return parser


SECRETS_IN_FILE_HELP = ("with no system keyring, write secrets (tokens, keys, passwords in the environment, headers, "
                        "arguments or URL) into the settings file in plain text; without it such a server is "
                        "refused, not saved without its secret")


def add_mcp_parser(subparsers: argparse._SubParsersAction,
                   parents: Sequence[argparse.ArgumentParser] = ()) -> argparse.ArgumentParser:
    """Add the ``mcp`` sub-command (list / add / remove / import / serve) to ``subparsers``."""
    parents = list(parents)
    parser = subparsers.add_parser(
        "mcp", help="MCP servers: list, add, remove, import, install a bundle; serve our tools to another MCP client",
        description="The MCP (Model Context Protocol) servers whose tools chats use, and `serve`: this app's own "
                    "tools as an MCP server for other apps.", parents=parents,
    )
    sub = parser.add_subparsers(dest="mcp_command", metavar="{list,add,remove,import,install,login,logout,serve}")
    p = sub.add_parser("list", help="each server, its status and its tools (starts them to find out)",
                       parents=parents)
    p.add_argument("--no-start", action="store_true", help="only the configuration; start no server")
    p = sub.add_parser(
        "add", help="add a stdio server: mcp add NAME [--env K=V] -- COMMAND ARGS…, or a remote one with --url",
        parents=parents,
    )
    p.add_argument("name", metavar="NAME")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                   help="an environment variable (repeatable); a token/key/secret goes to the keyring")
    p.add_argument("--cwd", default="", metavar="DIR", help="the folder the server runs in")
    p.add_argument("--url", default="", metavar="URL", help="a Streamable HTTP server instead of a command")
    p.add_argument("--header", action="append", default=[], metavar="NAME=VALUE",
                   help="an HTTP header for --url (repeatable); secrets go to the keyring")
    p.add_argument("--secrets-in-file", action="store_true", help=SECRETS_IN_FILE_HELP)
    p.set_defaults(server_command=[])  # what follows `--` (split off before parsing: see app.py)
    p = sub.add_parser("remove", help="remove a server (and its secrets in the keyring)", parents=parents)
    p.add_argument("name", metavar="NAME")
    p = sub.add_parser("import", help="import the MCP servers of Claude Desktop, Cursor or VS Code (mcp.json), or Zed "
                       "(settings.json); ${input:…} values are asked for (piped: one line each)", parents=parents)
    p.add_argument("file", metavar="FILE")
    p.add_argument("--secrets-in-file", action="store_true", help=SECRETS_IN_FILE_HELP)
    p = sub.add_parser("install", help="install an MCP bundle (.mcpb): shows it, asks for its settings, unpacks "
                       "it and adds its server", parents=parents)
    p.add_argument("file", metavar="FILE.mcpb")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="a value of the bundle's settings (repeatable); the others are asked for")
    p.add_argument("--defaults", action="store_true", help="ask nothing: the --set values and the defaults")
    p.add_argument("--secrets-in-file", action="store_true", help=SECRETS_IN_FILE_HELP)

    from desktop_agent.cli.mcp_login import add_parsers as add_login_parsers

    add_login_parsers(sub, parents)
    p = sub.add_parser(
        "serve", help="serve your Python tools to another MCP client over stdio (the same rules as in chats)",
        description="Serve your Python tools (shipped, the tools folder, entry points) to another MCP client over "
                    "stdin/stdout, with the schemas the model gets and the same permission rules. A tool that "
                    "would ask is asked through the client when it supports elicitation, else denied: allow it "
                    "in Settings → Tools → Permissions, or with --allow-tool. Calls are audited.",
        parents=parents,
    )
    p.add_argument("--tools-dir", action="append", default=[], metavar="DIR", help="also serve tools from DIR")
    p.add_argument("--allow-tool", action="append", default=[], metavar="NAME",
                   help="allow tool NAME without asking while serving (repeatable)")
    for child in sub.choices.values():
        child.set_defaults(_parser=child)
    parser.set_defaults(_mcp_parser=parser, _parser=parser)
    return parser


def add_doctor_parser(sub: argparse._SubParsersAction, parents: Sequence[argparse.ArgumentParser] = ()) -> None:
    p = sub.add_parser(
        "doctor", help="check what the app depends on (model server, keyring, MCP servers, folders, display)",
        description="Check what the app depends on: the settings file, the model server and its model, the keyring, "
                    "each MCP server (started to find out), the tools folder, the data folder, and what the window "
                    "needs. Each line says ✓ (works), ! (a limit) or ✗ (broken, with the fix). Exit status 1 when "
                    "something is broken.", parents=list(parents))
    p.add_argument("--backend", choices=["ollama", "openai"], help="check this backend instead of the saved one")
    p.add_argument("--host", metavar="URL", type=_host_url, help="check this Ollama host")
    p.add_argument("--base-url", metavar="URL", type=_base_url, help="check this OpenAI-compatible base URL")
    p.add_argument("--model", metavar="NAME", type=_nonempty("the model name"), help="check this model")
    p.add_argument("--no-mcp", action="store_true", help="do not start the MCP servers")
    p.set_defaults(_parser=p)
