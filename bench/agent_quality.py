"""How good the agent's answers are on a real model with default settings: the app against a plain SDK loop.

    python bench/agent_quality.py [--figures] [--smoke] [--base-url URL] [--model NAME] [--only N ...]
                                  [--limit-s S] [--systems app,plain,no-tools] [--json FILE]

Each prompt in :data:`PROMPTS` is an everyday message — half need no tool (facts, wording, greetings), half
need one (dates and weekdays, arithmetic, the time now, a named tool) — with a regular expression its final
answer must match. Every prompt is asked of:

- **app**: ``desktop-agent chat -p PROMPT --events`` in a process of its own, exactly as a user runs it:
  default settings (tools on), the OpenAI-compatible backend pointed at the README's local model, one data and
  cache folder for the whole run (what the app learns about the server carries from prompt to prompt, as it
  does for a user);
- **plain**: a plain loop in the style of seed 002 — the official ``openai`` client, every shipped tool offered
  on every message (``tool_choice="auto"`` said explicitly: llama-cpp-python ignores tools without it), tool
  results sent back as ``role="tool"``, until an answer or 8 steps; a call of a tool that changes something is
  counted and answered "denied" instead of run;
- **no-tools** (with ``--systems``): the app with ``--no-tools``, to show what the model answers on its own.

Figures: the success rate of each system, the app's margin over the plain loop (points), the median and worst
time to an answer, the number of times a tool that changes something (write, edit, shell) was asked for on a
prompt that needs none, and the number of runs that ended without an answer (a time limit, the step limit,
an error). Without ``--base-url`` the README's local model is started (``scripts/local-model.sh``) on a free
port for each system in turn. ``--smoke`` asks three prompts (CI runs that as a check that the benchmark
itself works; it is not a timed test).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _figures import Figure, emit, load, machine  # noqa: E402

#: tools that change something: asking for one on a prompt that needs no tool is the worst outcome
CHANGING_TOOLS = frozenset({"write_text_file", "run_shell_command", "edit_file"})
#: the smoke run: one prompt that needs no tool, one that needs one, one named tool
SMOKE = ("capital", "weekday-2024", "hello-tool")


@dataclass(frozen=True)
class Prompt:
    key: str
    text: str
    #: the final answer must match this (case-insensitive); a callable builds it at run time (today's date)
    expect: str | Callable[[], str]
    needs_tool: bool

    def pattern(self) -> re.Pattern[str]:
        expect = self.expect() if callable(self.expect) else self.expect
        return re.compile(expect, re.IGNORECASE | re.DOTALL)


def _today() -> str:
    now = dt.date.today()
    month = now.strftime("%B")
    return (rf"{now.isoformat()}|{month}\s+0?{now.day}\b|\b0?{now.day}(st|nd|rd|th)?\s+(of\s+)?{month}"
            rf"|{now.month:02d}/{now.day:02d}/{now.year}")


def _now_time() -> str:
    """Any time within a few minutes of now (HH:MM, 24-hour or 12-hour)."""
    now = dt.datetime.now()
    times = set()
    for delta in range(-3, 6):
        t = now + dt.timedelta(minutes=delta)
        times.add(f"{t.hour:02d}:{t.minute:02d}")
        times.add(f"{t.hour}:{t.minute:02d}")
        times.add(f"{(t.hour % 12) or 12}:{t.minute:02d}")
    return r"\b(" + "|".join(sorted(times)) + r")\b"


PROMPTS: tuple[Prompt, ...] = (
    # ---- no tool needed: facts, wording, greetings ----
    Prompt("capital", "What is the capital of France?", r"\bparis\b", False),
    Prompt("greeting", "Hi there! How are you today?", r"\b(hello|hi|hey|good|great|fine|well|doing)\b", False),
    Prompt("red-planet", "Which planet is known as the Red Planet?", r"\bmars\b", False),
    Prompt("ocean", "What is the largest ocean on Earth?", r"\bpacific\b", False),
    Prompt("sky", "What colour is the sky on a clear day?", r"\bblue\b", False),
    Prompt("opposite", "What is the opposite of hot?", r"\bcold\b", False),
    Prompt("merci", "How do you say 'thank you' in French?", r"\bmerci\b", False),
    Prompt("sentence", "Write one short sentence about cats.", r"\bcats?\b", False),
    Prompt("brazil", "Which language do people speak in Brazil?", r"\bportuguese\b", False),
    Prompt("synonym", "Give me a synonym for 'happy'.",
           r"\b(glad|joyful|cheerful|content|delighted|pleased|joyous|merry|elated|jolly)\b", False),
    # ---- one tool needed: dates and weekdays, arithmetic, the time now, a named tool ----
    Prompt("weekday-2024", "What day of the week was 2024-03-15?", r"\bfriday\b", True),
    Prompt("weekday-moon", "What day of the week was 1969-07-20?", r"\bsunday\b", True),
    Prompt("weekday-2030", "Which weekday is 2030-01-01?", r"\btuesday\b", True),
    Prompt("multiply", "What is 1234 * 5678?", r"7,?006,?652", True),
    Prompt("power", "Calculate 2 ** 20.", r"1,?048,?576", True),
    Prompt("sqrt", "What is the square root of 1764?", r"\b42(\.0+)?\b", True),
    Prompt("percent", "What is 15% of 240?", r"\b36(\.0+)?\b", True),
    Prompt("today", "What is today's date?", _today, True),
    Prompt("time-now", "What time is it right now?", _now_time, True),
    Prompt("hello-tool", "Use the say_hello tool to greet Ada.", r"\bada\b", True),
)


@dataclass
class Run:
    system: str
    key: str
    needs_tool: bool
    ok: bool = False
    answered: bool = False  # ended with an answer (not a time limit, the step limit or an error)
    seconds: float = 0.0
    answer: str = ""
    tools_called: list[str] = field(default_factory=list)
    changing_asked: int = 0
    ended: str = ""  # AnswerFinished / TurnFailed: … / time limit


# ---- the app: `desktop-agent chat -p … --events`, as a user runs it ------------------------------------


def run_app(prompt: Prompt, base_url: str, model: str, home: Path, limit_s: float, *, no_tools: bool = False) -> Run:
    system = "no-tools" if no_tools else "app"
    run = Run(system, prompt.key, prompt.needs_tool)
    env = dict(os.environ)
    env.update({"XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
                "XDG_CACHE_HOME": str(home / "cache"), "XDG_STATE_HOME": str(home / "state"),
                "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"})
    env.pop("OPENAI_API_KEY", None)
    cmd = [sys.executable, "-m", "desktop_agent", "chat", "--backend", "openai", "--base-url", base_url,
           "--model", model, "-p", prompt.text, "--events"]
    if no_tools:
        cmd.append("--no-tools")
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, _err = proc.communicate(timeout=limit_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _err = proc.communicate()
        run.ended = f"time limit ({limit_s:.0f} s)"
    run.seconds = time.monotonic() - t0
    for line in out.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        kind = event.get("type")
        if kind == "ToolCallStarted":
            run.tools_called.append(event.get("name", ""))
        elif kind == "AnswerFinished":
            run.answer = (event.get("message") or {}).get("content") or ""
            run.answered, run.ended = True, "AnswerFinished"
        elif kind == "TurnFailed" and not run.ended:
            run.ended = "TurnFailed: " + str((event.get("error") or {}).get("message") or event.get("error"))[:120]
            partial = event.get("partial") or {}
            run.answer = partial.get("content") or ""
    if not run.ended:
        run.ended = f"exit {proc.returncode} without an end event"
    run.changing_asked = sum(1 for name in run.tools_called if name in CHANGING_TOOLS)
    run.ok = run.answered and bool(prompt.pattern().search(run.answer))
    return run


# ---- the plain loop: seed 002's ReAct loop over the official openai client ------------------------------

PLAIN_SYSTEM = ("You are a helpful assistant. Think about whether you need a tool for each step; "
                "call one if you do, otherwise give the final answer.")


def run_plain(prompt: Prompt, base_url: str, model: str, limit_s: float, max_steps: int = 8) -> Run:
    import openai

    from desktop_agent.core.tools.loader import load_tools
    from desktop_agent.core.tools.registry import ToolRegistry

    run = Run("plain", prompt.key, prompt.needs_tool)
    registry = ToolRegistry()
    load_tools(registry, user_dir=False, entry_points=False)
    tools = {t.name: t for t in registry}
    schemas = [t.schema() for t in tools.values()]
    client = openai.OpenAI(base_url=base_url, api_key="none", max_retries=0, timeout=limit_s)
    messages: list[dict] = [{"role": "system", "content": PLAIN_SYSTEM}, {"role": "user", "content": prompt.text}]
    t0 = time.monotonic()
    try:
        for _ in range(max_steps):
            if time.monotonic() - t0 > limit_s:
                run.ended = f"time limit ({limit_s:.0f} s)"
                break
            resp = client.chat.completions.create(model=model, messages=messages, tools=schemas,  # type: ignore[arg-type]
                                                  tool_choice="auto", temperature=0)
            msg = resp.choices[0].message
            calls = msg.tool_calls or []
            messages.append({"role": "assistant", "content": msg.content or "",
                             "tool_calls": [{"id": c.id, "type": "function",
                                             "function": {"name": c.function.name,
                                                          "arguments": c.function.arguments}}
                                            for c in calls]} if calls else
                            {"role": "assistant", "content": msg.content or ""})
            if not calls:
                run.answer = msg.content or ""
                run.answered, run.ended = bool(run.answer.strip()), "answer" if run.answer.strip() else "empty"
                break
            for c in calls:
                name = c.function.name
                run.tools_called.append(name)
                if name in CHANGING_TOOLS:
                    observation = "denied: this benchmark does not run tools that change something"
                elif name in tools:
                    try:
                        args = json.loads(c.function.arguments or "{}")
                        observation = json.dumps(tools[name].fn(**args), ensure_ascii=False, default=str)
                    except Exception as exc:  # noqa: BLE001 - the model hears every failure, as in seed 002
                        observation = f"error: {exc}"
                else:
                    observation = f"error: no tool named {name}"
                messages.append({"role": "tool", "tool_call_id": c.id, "content": observation})
        else:
            run.ended = f"step limit ({max_steps})"
    except Exception as exc:  # noqa: BLE001 - a failed run is a result of the benchmark
        run.ended = f"{type(exc).__name__}: {str(exc)[:100]}"
    run.seconds = time.monotonic() - t0
    run.changing_asked = sum(1 for name in run.tools_called if name in CHANGING_TOOLS)
    run.ok = run.answered and bool(prompt.pattern().search(run.answer))
    return run


# ---- the local model ------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_local_model() -> tuple[subprocess.Popen[bytes], str]:
    """The README's local model (``scripts/local-model.sh serve PORT``), ready; its process and base URL."""
    port = _free_port()
    proc = subprocess.Popen(["bash", str(ROOT / "scripts" / "local-model.sh"), "serve", str(port)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 900  # the first run may build the server
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the local model server ended (exit {proc.returncode}); try scripts/local-model.sh serve")
        try:
            with urllib.request.urlopen(base + "/models", timeout=2):
                return proc, base
        except OSError:
            time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)
    raise SystemExit("the local model server did not answer within 15 minutes")


# ---- figures --------------------------------------------------------------------------------------------


def _rate(runs: list[Run]) -> float:
    return 100.0 * sum(r.ok for r in runs) / len(runs) if runs else 0.0


def figures(runs: list[Run], prompts: tuple[Prompt, ...]) -> list[Figure]:
    by = {s: [r for r in runs if r.system == s] for s in ("app", "plain", "no-tools")}
    app, plain = by["app"], by["plain"]
    out: list[Figure] = []
    n = len(prompts)
    note = f"{n} prompts ({sum(p.needs_tool for p in prompts)} need a tool); {load()}"
    app_rate = _rate(app)
    out.append(Figure("agent quality: the app's answers right (defaults, README's local model)", round(app_rate),
                      "%", "≥ 80 %", app_rate >= 80, note=note))
    if plain:
        plain_rate = _rate(plain)
        margin = app_rate - plain_rate
        out.append(Figure("agent quality: the plain SDK loop's answers right", round(plain_rate), "%", "—", None,
                          note="seed 002's loop, every shipped tool offered, tool_choice auto"))
        out.append(Figure("agent quality: the app's margin over the plain loop", round(margin), "points",
                          "≥ 30 points", margin >= 30))
    if by["no-tools"]:
        out.append(Figure("agent quality: the app with --no-tools, answers right", round(_rate(by["no-tools"])),
                          "%", "—", None, note="what the model answers on its own"))
    times = [r.seconds for r in app]
    if times:
        out.append(Figure("agent quality: the app's median time to an answer", round(statistics.median(times), 1),
                          "s", "—", None))
        out.append(Figure("agent quality: the app's worst time to an answer", round(max(times), 1), "s", "—", None))
    needless = sum(r.changing_asked for r in app if not r.needs_tool)
    out.append(Figure("agent quality: write/edit/shell asked for on a prompt that needs no tool", needless, "",
                      "0", needless == 0))
    unanswered = sum(not r.answered for r in app)
    out.append(Figure("agent quality: app runs without an answer (time limit, step limit, error)", unanswered, "",
                      "0", unanswered == 0))
    return out


def _stop(server: subprocess.Popen[bytes]) -> None:
    """Stop the server's process group: politely, then for good (it may be busy generating for a gone client)."""
    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(server.pid, sig)
            server.wait(wait_s)
            return
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return


def _run_system(system: str, prompts: tuple[Prompt, ...], args: argparse.Namespace) -> list[Run]:
    """Every prompt through one system. Without ``--base-url`` each system gets a server of its own, started
    for it: llama-cpp-python goes on generating for a request whose client gave up (a time limit), which
    would slow the next system's first runs."""
    server = None
    base = args.base_url
    if not base:
        server, base = start_local_model()
    home = Path(tempfile.mkdtemp(prefix="agent-quality-"))  # the app's data and cache, for the whole system
    runs: list[Run] = []
    try:
        for prompt in prompts:
            if system == "plain":
                run = run_plain(prompt, base, args.model, args.limit_s)
            else:
                run = run_app(prompt, base, args.model, home, args.limit_s, no_tools=system == "no-tools")
            runs.append(run)
            mark = "ok " if run.ok else "BAD"
            tools = ",".join(run.tools_called) or "-"
            print(f"{mark} {system:8} {prompt.key:13} {run.seconds:6.1f}s tools={tools:30} "
                  f"{run.ended[:40]:40} {run.answer[:90]!r}", file=sys.stderr, flush=True)
    finally:
        if server is not None:
            _stop(server)
        shutil.rmtree(home, ignore_errors=True)
    return runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--figures", action="store_true", help="print the figures as JSON lines (bench/_figures.py)")
    ap.add_argument("--smoke", action="store_true", help=f"three prompts only ({', '.join(SMOKE)})")
    ap.add_argument("--base-url", help="an OpenAI-compatible server already running (default: start the README's)")
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--only", nargs="+", metavar="KEY", help="only these prompts")
    ap.add_argument("--limit-s", type=float, default=300.0,
                    help="time limit of one run (default 300 s, the app's own wait for a first answer)")
    ap.add_argument("--systems", default="app,plain", help="app, plain, no-tools (comma-separated)")
    ap.add_argument("--json", metavar="FILE", help="write every run to FILE")
    args = ap.parse_args()

    prompts = PROMPTS
    if args.smoke:
        prompts = tuple(p for p in PROMPTS if p.key in SMOKE)
    if args.only:
        prompts = tuple(p for p in PROMPTS if p.key in args.only)
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    print(machine(), file=sys.stderr)

    runs: list[Run] = []
    for system in systems:  # one system after the other, each on a server of its own (see _run_system)
        runs += _run_system(system, prompts, args)

    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in runs], indent=1, ensure_ascii=False))
    results = figures(runs, prompts)
    if args.figures:
        emit(results)
    else:
        for f in results:
            print(f"{f.figure}: {f.value} {f.unit} (goal {f.goal}) {f.note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
