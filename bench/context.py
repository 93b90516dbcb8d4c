"""Benchmark: the cost of choosing the history of one request (issue 13) for a 2,000-message chat against a
200-message chat. The walk goes from the newest message back and stops when the window is full, so the cost
must stay flat as the chat grows. Prints the times and their ratio.

    python bench/context.py [--window 8192] [--repeat 200] [--figures]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _figures import Figure, emit, load  # noqa: E402

from desktop_agent.core.context import budget_for, plan_request, request_for  # noqa: E402
from desktop_agent.core.messages import Message, ToolCall  # noqa: E402

#: "flat": a chat ten times longer costs at most this much more to choose from
FLAT = 1.5

TOOLS = [{"type": "function", "function": {"name": f"tool_{i}", "description": "Does a thing. " * 8,
                                           "parameters": {"type": "object", "properties": {}}}} for i in range(8)]


def chat(messages: int) -> list[Message]:
    """A chat of about ``messages`` messages: questions, answers, a tool call with a long result every 5 turns."""
    out: list[Message] = []
    i = 0
    while len(out) < messages:
        out.append(Message(role="user", content=f"question {i}: " + "words of the question " * 6))
        if i % 5 == 0:
            call = ToolCall(name="tool_1", arguments={"i": i})
            out.append(Message(role="assistant", tool_calls=[call]))
            out.append(Message(role="tool", content="result " * 400, tool_call_id=call.id, tool_name="tool_1"))
        out.append(Message(role="assistant", content=f"answer {i}: " + "words of the answer " * 12))
        i += 1
    return out


def time_choice(history: list[Message], budget: int, repeat: int) -> float:
    """Median seconds of one choice (selection + request list)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        request_for(plan_request(history, "You are a helpful assistant.", budget=budget, tools=TOOLS), "SYS")
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=8192)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--figures", action="store_true", help="print the figure as a JSON line (bench/run_all.py)")
    args = parser.parse_args(argv)
    budget = budget_for(args.window)
    small, large = chat(200), chat(2000)
    time_choice(large, budget, 5)  # warm up
    t_small = time_choice(small, budget, args.repeat)
    t_large = time_choice(large, budget, args.repeat)
    if args.figures:
        ratio = t_large / t_small
        emit([Figure("choosing the history of one request: a 2,000-message ÷ a 200-message chat", round(ratio, 2),
                     "×", f"flat (≤ {FLAT}×)", ratio <= FLAT, limit=f"the 200-message chat ({t_small * 1e3:.3f} ms)",
                     note=f"2,000 messages: {t_large * 1e3:.3f} ms; {args.window}-token window; medians of "
                          f"{args.repeat}; {load()}")])
        return 0
    print(f"window {args.window} tokens (prompt budget {budget})")
    print(f"choosing the history, 200-message chat:   {t_small * 1e3:8.3f} ms")
    print(f"choosing the history, 2,000-message chat: {t_large * 1e3:8.3f} ms")
    print(f"ratio 2,000 / 200: {t_large / t_small:.2f}  (flat: close to 1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
