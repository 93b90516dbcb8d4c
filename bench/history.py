"""Benchmark of the chat history store at scale (issue 6). Prints figures and ratios from one run.

    python bench/history.py [--chats 10000] [--messages 200000] [--keep DIR]

Builds a store with ``--chats`` chats and ``--messages`` messages in a temporary data dir (bulk insert
with ``synchronous=OFF`` while building; measurements use the store as the app opens it), then measures:

- listing the first page of chats (50 rows, newest first)            target <= 200 ms
- full-text searches (a rare word, a common word, two words, a
  two-character Chinese term that falls back to scanning)            target <= 100 ms
- app start-up with that store / start-up with an empty store: a subprocess
  ``python -c`` that opens the store via DESKTOP_AGENT_HOME and lists the first page   target <= 1.1
- saving one more message into a 2,000-message chat, and into a 200-message chat
  (flat = no rewriting of whole conversations)                       target <= 5 ms
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktop_agent.core.messages import Conversation, Message, ToolCall  # noqa: E402
from desktop_agent.core.store import ConversationStore  # noqa: E402

COMMON = [
    "the", "a", "to", "of", "and", "in", "is", "it", "you", "that", "for", "on", "with", "this", "can", "be", "as",
    "are", "have", "not", "your", "will", "or", "if", "at", "by", "from", "weather", "file", "model", "tool", "answer",
    "question", "code", "python", "error", "time", "today", "city", "list", "data", "run", "result", "please", "thanks",
    "help", "need", "want", "make", "use", "find", "show", "get", "set", "open", "read", "write", "first", "next",
    "last", "new", "good",
]
CHINESE = [
    "天气", "北京", "上海", "明天", "今天", "工具", "模型", "问题", "代码",
    "文件", "时间", "帮助", "谢谢", "请问", "结果", "北京明天的天气", "上海今天下雨",
]
RARE_WORD = "quetzalcoatl"  # put into ~0.05 % of messages
START_UP_CODE = (
    "from desktop_agent.core.store import ConversationStore\n"
    "s = ConversationStore()\n"
    "rows = s.list(50)\n"
    "s.close()\n"
)


def make_vocabulary(rnd: random.Random, n: int = 4000) -> list[str]:
    syll = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "ba", "di", "fo", "gu", "ha", "jo", "pe", "qui", "ry"]
    return list({"".join(rnd.choice(syll) for _ in range(rnd.randint(2, 4))) for _ in range(n)})


def sentence(rnd: random.Random, vocab: list[str], words: int) -> str:
    out = []
    for _ in range(words):
        r = rnd.random()
        out.append(rnd.choice(COMMON) if r < 0.55 else rnd.choice(CHINESE) if r < 0.6 else rnd.choice(vocab))
    if rnd.random() < 0.0005:
        out.insert(rnd.randrange(len(out) + 1), RARE_WORD)
    return " ".join(out)


def make_chat(rnd: random.Random, vocab: list[str], n: int, when: float) -> Conversation:
    conv = Conversation(model=rnd.choice(["llama3.2", "qwen3", "gpt-4o-mini"]), backend="ollama", created_at=when)
    t = when
    for i in range(n):
        t += rnd.uniform(1, 120)
        k = i % 4
        if k == 0:
            m = Message(role="user", content=sentence(rnd, vocab, rnd.randint(4, 30)), created_at=t)
        elif k == 1:
            call = ToolCall(name=rnd.choice(["get_weather", "read_file", "search_web"]),
                            arguments={"q": sentence(rnd, vocab, 2)})
            m = Message(role="assistant", tool_calls=[call], model=conv.model, backend="ollama", created_at=t)
        elif k == 2:
            m = Message(role="tool", content=sentence(rnd, vocab, rnd.randint(5, 40)), tool_name="get_weather",
                        tool_status="ok", duration_ms=rnd.uniform(1, 900), created_at=t)
        else:
            m = Message(role="assistant", content=sentence(rnd, vocab, rnd.randint(10, 80)), model=conv.model,
                        backend="ollama", created_at=t)
        conv.messages.append(m)
    conv.updated_at = t
    return conv


def build(path: Path, chats: int, messages: int, rnd: random.Random) -> tuple[str, str, float]:
    """Fill the store; returns the ids of a 200- and a 2,000-message chat, and the build time (s)."""
    vocab = make_vocabulary(rnd)
    big_n, small_n = 2000, 200
    rest_chats = chats - 2
    rest_msgs = messages - big_n - small_n
    counts = [rest_msgs // rest_chats] * rest_chats
    for i in range(rest_msgs - sum(counts)):
        counts[i] += 1
    for i in range(0, rest_chats - 1, 2):  # vary the lengths, keep the total
        d = rnd.randint(0, counts[i] - 2)
        counts[i] -= d
        counts[i + 1] += d
    now = time.time()
    t0 = time.perf_counter()
    store = ConversationStore(path)
    store.conn.execute("PRAGMA synchronous = OFF")
    batch: list[Conversation] = []
    for n in counts:
        batch.append(make_chat(rnd, vocab, n, now - rnd.uniform(3600, 2 * 365 * 86400)))
        if len(batch) == 250:
            store.add_conversations(batch)
            batch = []
    big = make_chat(rnd, vocab, big_n, now - 30 * 86400)
    small = make_chat(rnd, vocab, small_n, now - 20 * 86400)
    store.add_conversations([*batch, big, small])
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.conn.execute("PRAGMA optimize")
    store.close()
    return small.id, big.id, time.perf_counter() - t0


def timed(fn, repeat: int) -> tuple[float, float, list[float]]:
    """(first call ms, median ms of the rest, all ms)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return times[0], statistics.median(times[1:] or times), times


def start_up_ms(home: Path) -> float:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT)}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", START_UP_CODE], env=env, check=True, cwd=ROOT)
    return (time.perf_counter() - t) * 1000


def verdict(value: float, target: float) -> str:
    return "ok" if value <= target else "OVER TARGET"


def organised_rows(store: ConversationStore, row) -> None:
    """Pins and tags on 5 % of the chats (undone after): the first page pinned-first, and filtered by tag, by
    model and by date (the history panel's filter) — each within the first page's target."""
    from desktop_agent.core.store.labels import ChatFilter

    ids = [s.id for s in store.list(limit=100_000)]
    picked = ids[:: 20]
    for i, cid in enumerate(picked):
        if i % 4 == 0:
            store.set_pinned(cid, True)
        store.add_tag(cid, ("work", "home", "ideas")[i % 3])
    model = store.all_models()[0][0]
    cases = [("list first page, 5 % pinned, tagged", None), ("list filtered by tag (first page)",
             ChatFilter(tag="work")), ("list filtered by model (first page)", ChatFilter(model=model)),
             ("list filtered by date (last 30 days)", ChatFilter(since=time.time() - 30 * 86400))]
    for label, where in cases:
        first, med, _ = timed(lambda w=where: (store.list(100, where=w), store.count(w)), 10)
        row(label, f"first {first:.1f} ms, median {med:.2f} ms", "<= 200 ms", verdict(max(first, med), 200))
    with store.write() as conn:
        conn.execute("DELETE FROM chat_pins")
        conn.execute("DELETE FROM chat_tags")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chats", type=int, default=10_000)
    ap.add_argument("--messages", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--keep", metavar="DIR", help="build in DIR and keep it (default: a temp dir, removed)")
    ap.add_argument("--figures", action="store_true", help="also print the figures as JSON lines (bench/run_all.py)")
    args = ap.parse_args(argv)
    rnd = random.Random(args.seed)

    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="da-history-bench-"))
    full_home, empty_home = base / "full", base / "empty"
    db = full_home / "data" / "conversations.sqlite3"
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
        small_id, big_id, build_s = build(db, args.chats, args.messages, rnd)
        size_mb = sum(p.stat().st_size for p in db.parent.glob("conversations.sqlite3*")) / 1e6
        print(f"history bench: {args.chats:,} chats / {args.messages:,} messages, "
              f"db {size_mb:.0f} MB, built in {build_s:.1f} s (bulk insert)")
        print(f"python {sys.version.split()[0]}, sqlite {__import__('sqlite3').sqlite_version}")
        print()

        store = ConversationStore(db)
        assert store.warnings == [], store.warnings
        rows: list[str] = []

        def row(label: str, figure: str, target: str = "", ok: str = "") -> None:
            rows.append(f"{label:<44} {figure:<34} {target:<14} {ok}")

        first, med, _ = timed(lambda: store.list(50), 30)
        list_ms = max(first, med)
        worst_search = 0.0
        row("list first page (50 chats)", f"first {first:.1f} ms, median {med:.2f} ms", "<= 200 ms",
            verdict(max(first, med), 200))
        _, med_p, _ = timed(lambda: store.list(50, offset=5000), 10)
        row("list page at offset 5,000", f"median {med_p:.2f} ms")
        organised_rows(store, row)

        searches = [
            (f'"{RARE_WORD}" (rare word)', RARE_WORD),
            ('"weather" (common word)', "weather"),
            ('"python error" (two words)', "python error"),
            ("2-char Chinese term (scan fallback)", "天气"),
            ("5-char Chinese term (indexed)", "明天的天气"),
            ('"zzyzx" (no match, indexed)', "zzyzx"),
            ('"zq" (2 chars, no match: full scan)', "zq"),
        ]
        for label, q in searches:
            n_hits = len(store.search(q))
            first, med, _ = timed(lambda q=q: store.search(q), 10)
            worst_search = max(worst_search, med)
            row(f"search {label}", f"median {med:.1f} ms ({n_hits} hits)", "<= 100 ms", verdict(med, 100))

        # save one message: alternate between the 200- and the 2,000-message chat
        small, big = store.load(small_id), store.load(big_id)
        t_small, t_big = [], []
        for i in range(300):
            for conv, sink in ((small, t_small), (big, t_big)) if i % 2 else ((big, t_big), (small, t_small)):
                m = Message(role="user", content=sentence(rnd, ["extra"], 20))
                conv.messages.append(m)
                t = time.perf_counter()
                store.add_message(conv, m)
                sink.append((time.perf_counter() - t) * 1000)
        med_small, med_big = statistics.median(t_small), statistics.median(t_big)
        p95 = lambda xs: sorted(xs)[int(len(xs) * 0.95)]  # noqa: E731
        row("save 1 message into a 2,000-message chat", f"median {med_big:.2f} ms, p95 {p95(t_big):.2f} ms", "<= 5 ms",
            verdict(med_big, 5))
        row("save 1 message into a 200-message chat", f"median {med_small:.2f} ms, p95 {p95(t_small):.2f} ms")
        row("  ratio 2,000 / 200 (flat = ~1)", f"{med_big / med_small:.2f}")
        first, med, _ = timed(lambda: store.load(big_id), 5)
        row("load the 2,000-message chat", f"median {med:.1f} ms")
        store.close()

        # for comparison only: the same saves without an fsync per commit (synchronous=NORMAL: safe
        # against an app crash, may lose the last commits on power loss). The app uses FULL.
        store = ConversationStore(db)
        store.conn.execute("PRAGMA synchronous = NORMAL")
        big = store.load(big_id)
        t_normal = []
        for _ in range(200):
            m = Message(role="user", content=sentence(rnd, ["extra"], 20))
            big.messages.append(m)
            t = time.perf_counter()
            store.add_message(big, m)
            t_normal.append((time.perf_counter() - t) * 1000)
        store.close()
        row("  same, synchronous=NORMAL (no fsync; info)", f"median {statistics.median(t_normal):.2f} ms")

        # start-up: fresh process, open store, list first page; empty store vs full store, interleaved
        empty_home.mkdir(parents=True, exist_ok=True)
        start_up_ms(empty_home), start_up_ms(full_home)  # warm the OS caches, create the empty store
        s_empty, s_full = [], []
        for _ in range(21):
            s_empty.append(start_up_ms(empty_home))
            s_full.append(start_up_ms(full_home))
        m_empty, m_full = statistics.median(s_empty), statistics.median(s_full)
        ratio = m_full / m_empty
        row("start-up (open store + list), empty store", f"median {m_empty:.0f} ms, min {min(s_empty):.0f} ms")
        row("start-up (open store + list), full store", f"median {m_full:.0f} ms, min {min(s_full):.0f} ms")
        row("  ratio full / empty (medians)", f"{ratio:.3f}", "<= 1.1", verdict(ratio, 1.1))
        row("  ratio full / empty (minimums)", f"{min(s_full) / min(s_empty):.3f}")

        print("\n".join(rows))
        ok = all("OVER" not in r for r in rows)
        print()
        print("all targets met" if ok else "some targets missed")
        if args.figures:
            from _figures import Figure, emit

            n = f"{args.chats:,} chats"
            emit([Figure(f"history: list the first page of {n}", round(list_ms, 1), "ms", "≤ 200 ms", list_ms <= 200),
                  Figure(f"history: slowest full-text search, {n}", round(worst_search, 1), "ms", "≤ 100 ms",
                         worst_search <= 100),
                  Figure("history: save one message into a 2,000-message chat", round(med_big, 2), "ms", "≤ 5 ms",
                         med_big <= 5, limit=f"a 200-message chat ({med_small:.2f} ms)",
                         ratio=round(med_big / med_small, 2), note=f"median of 300; p95 {p95(t_big):.2f} ms"),
                  Figure(f"history: start-up with {n} ÷ with an empty store", round(ratio, 3), "×", "≤ 1.1×",
                         ratio <= 1.1, limit="start-up with an empty store (raw store open + list)")])
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
