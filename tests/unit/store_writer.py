"""Helper process for ``test_store_crash.py``: writes chat turns through ConversationStore until killed.

Usage: ``python -m tests.unit.store_writer DB_PATH SEED``. Prints ``ready`` once the store is open, then
after each ``add_message`` returns one line ``ok <message id> <sha1 of content>``; before an
``update_message`` it prints ``pending <id> <sha1 of new content>`` and after it returns ``ok <id> <sha1>``.
Every line is flushed, so a line the parent read means that commit had returned.
"""

from __future__ import annotations

import hashlib
import random
import sys

from desktop_agent.core.messages import Conversation, Message, ToolCall
from desktop_agent.core.store import ConversationStore

WORDS = [
    "weather", "paris", "tool", "call", "result", "answer", "天气", "北京", "明天", "sunny", "rain", "model", "stream",
    "chunk",
]


def digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def text(rnd: random.Random, n: int) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(n))


def main() -> None:
    db, seed = sys.argv[1], int(sys.argv[2])
    rnd = random.Random(seed)
    out = sys.stdout
    store = ConversationStore(db)
    for warning in store.warnings:  # the parent test fails on these; say why
        print("store warning:", warning, file=sys.stderr, flush=True)
    out.write("ready\n")
    out.flush()

    def save(conv: Conversation, m: Message) -> None:
        conv.messages.append(m)
        store.add_message(conv, m)
        out.write(f"ok {m.id} {digest(m.content)}\n")
        out.flush()

    while True:
        conv = Conversation()
        for _ in range(rnd.randint(1, 5)):
            save(conv, Message(role="user", content=text(rnd, rnd.randint(1, 40))))
            call = ToolCall(name="get_weather", arguments={"city": rnd.choice(["Paris", "北京"])})
            save(conv, Message(role="assistant", tool_calls=[call]))
            # now and then a big tool result, so transactions span many pages and the WAL checkpoints
            size = rnd.choice([20, 50, 200, 5000]) if rnd.random() < 0.9 else 12_000
            save(conv, Message(role="tool", tool_call_id=call.id, tool_name="get_weather", tool_status="ok",
                               duration_ms=rnd.random() * 100, content=text(rnd, size)))
            answer = Message(role="assistant", content=text(rnd, 5), status="interrupted")
            save(conv, answer)  # a partial answer, then the finished one
            answer.content, answer.status = answer.content + " " + text(rnd, rnd.randint(5, 60)), "complete"
            out.write(f"pending {answer.id} {digest(answer.content)}\n")
            out.flush()
            store.update_message(answer)
            out.write(f"ok {answer.id} {digest(answer.content)}\n")
            out.flush()


if __name__ == "__main__":
    main()
