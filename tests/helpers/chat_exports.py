"""Chat exports of other apps, generated for tests from their public formats.

:func:`chatgpt_export` builds ChatGPT's ``conversations.json`` (a list of conversations, each a ``mapping`` of
nodes with ``parent``/``children``, ``current_node``): the empty root node, the hidden system message and custom
instructions ChatGPT writes, user and assistant text, regenerated answers and edited questions (branches), a
Python tool step (an assistant message addressed to ``python`` with ``code`` content, the tool's
``execution_output``), reasoning (``thoughts``) and an image part. :func:`openwebui_export` builds Open WebUI's
export (chat rows with ``chat.history.messages`` linked by ``parentId``/``childrenIds``, ``currentId``).
"""

from __future__ import annotations

import random
import uuid
from typing import Any

TOPICS = ["Trip plan", "Sourdough starter", "Tax question", "Python decorators", "Garden layout", "Birthday poem",
          "Kraków itinerary", "Ελληνική σαλάτα", "Budget spreadsheet", "Learning Rust", "天气与穿衣", "Car noise"]


class Builder:
    def __init__(self, rng: random.Random, t0: float):
        self.rng = rng
        self.t = t0
        self.mapping: dict[str, dict[str, Any]] = {}

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128)))

    def node(self, parent: str | None, message: dict[str, Any] | None, key: str | None = None) -> str:
        key = key or self.uid()
        self.mapping[key] = {"id": key, "message": message, "parent": parent, "children": []}
        if parent is not None:
            self.mapping[parent]["children"].append(key)
        return key

    def msg(self, role: str, content: dict[str, Any], *, name: str | None = None, recipient: str = "all",
            metadata: dict[str, Any] | None = None, key: str | None = None) -> dict[str, Any]:
        self.t += self.rng.uniform(2, 90)
        return {"id": key or self.uid(), "author": {"role": role, "name": name, "metadata": {}},
                "create_time": self.t, "update_time": None, "content": content, "status": "finished_successfully",
                "end_turn": role == "assistant" or None, "weight": 1.0, "metadata": metadata or {},
                "recipient": recipient, "channel": None}

    def add(self, parent: str, role: str, content: dict[str, Any], **kw: Any) -> str:
        key = self.uid()
        return self.node(parent, self.msg(role, content, key=key, **kw), key)


def text(*parts: Any) -> dict[str, Any]:
    return {"content_type": "text", "parts": list(parts)}


def chatgpt_conversation(i: int, rng: random.Random, *, turns: int | None = None) -> dict[str, Any]:
    """One realistic conversation (see the module docstring); ``i`` names it."""
    t0 = 1_700_000_000 + i * 3600.0
    b = Builder(rng, t0)
    root = b.node(None, None, key=b.uid())
    system = b.add(root, "system", text(""), metadata={"is_visually_hidden_from_conversation": True})
    head = b.add(system, "user", {"content_type": "user_editable_context", "user_profile": "I live in Berlin.",
                                  "user_instructions": "Be brief."},
                 metadata={"is_visually_hidden_from_conversation": True})
    topic = TOPICS[i % len(TOPICS)]
    slug = rng.choice(["gpt-4o", "gpt-4o-mini", "o3"])
    for turn in range(turns if turns is not None else rng.randint(1, 4)):
        question = f"{topic}: question {turn} of conversation {i} (marker q{i}x{turn})"
        kind = rng.random()
        if turn == 0 and i % 7 == 3:
            u = b.add(head, "user", {"content_type": "multimodal_text", "parts": [
                {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-abc", "width": 640,
                 "height": 480}, question]})
        else:
            u = b.add(head, "user", text(question))
        if kind < 0.2:  # a Python tool step
            code = {"content_type": "code", "language": "unknown", "text": f"print({i} * {turn})"}
            call = b.add(u, "assistant", code, recipient="python", metadata={"model_slug": slug})
            out = b.add(call, "tool", {"content_type": "execution_output", "text": str(i * turn)}, name="python")
            head = b.add(out, "assistant", text(f"The result is {i * turn}."), metadata={"model_slug": slug})
        elif kind < 0.35:  # reasoning, then the answer
            th = b.add(u, "assistant", {"content_type": "thoughts", "thoughts": [
                {"summary": "Thinking", "content": f"Considering {topic} carefully."}], "source_analysis_msg_id": "x"},
                metadata={"model_slug": slug})
            head = b.add(th, "assistant", text(f"Answer about {topic} (turn {turn})."), metadata={"model_slug": slug})
        else:
            head = b.add(u, "assistant", text(f"Answer about {topic} (turn {turn}, conversation {i})."),
                         metadata={"model_slug": slug})
            if rng.random() < 0.3:  # regenerated: a second answer to the same question, the one shown
                head = b.add(u, "assistant", text(f"Another answer about {topic} (turn {turn})."),
                             metadata={"model_slug": slug})
    current = head
    if i % 5 == 1:  # the first question edited: a second branch, shown
        first_user = next(k for k, n in b.mapping.items() if n["message"] and n["message"]["author"]["role"] == "user"
                          and n["message"]["content"]["content_type"] != "user_editable_context")
        parent = b.mapping[first_user]["parent"]
        edited = b.add(parent, "user", text(f"{topic}: edited question of conversation {i}"))
        current = b.add(edited, "assistant", text(f"Answer to the edited question {i}."), metadata={"model_slug": slug})
    cid = str(uuid.UUID(int=rng.getrandbits(128)))
    return {"title": topic if i % 11 else "", "create_time": t0, "update_time": b.t, "mapping": b.mapping,
            "moderation_results": [], "current_node": current, "plugin_ids": None, "conversation_id": cid,
            "conversation_template_id": None, "gizmo_id": None, "is_archived": False, "safe_urls": [],
            "default_model_slug": slug, "id": cid}


def chatgpt_export(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` conversations, as ChatGPT writes them into ``conversations.json``."""
    rng = random.Random(seed)
    return [chatgpt_conversation(i, rng) for i in range(n)]


def continue_chatgpt(conv: dict[str, Any], question: str, answer: str) -> None:
    """Add a question and an answer after ``current_node`` (the chat went on in ChatGPT)."""
    b = Builder(random.Random(hash(question) & 0xFFFF), conv["update_time"])
    b.mapping = conv["mapping"]
    u = b.add(conv["current_node"], "user", text(question))
    conv["current_node"] = b.add(u, "assistant", text(answer))
    conv["update_time"] = b.t


def openwebui_export(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` chats, as Open WebUI's Export Chats writes them; every third has a regenerated answer."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        t = 1_710_000_000 + i * 600
        messages: dict[str, dict[str, Any]] = {}
        parent = None
        current = None
        for turn in range(2):
            uid, aid = str(uuid.UUID(int=rng.getrandbits(128))), str(uuid.UUID(int=rng.getrandbits(128)))
            messages[uid] = {"id": uid, "parentId": parent, "childrenIds": [aid], "role": "user",
                             "content": f"webui question {turn} of chat {i}", "timestamp": t + turn * 10,
                             "models": ["llama3.2:latest"]}
            if parent is not None:
                messages[parent]["childrenIds"].append(uid)
            messages[aid] = {"id": aid, "parentId": uid, "childrenIds": [], "role": "assistant",
                             "content": ('<details type="reasoning" done="true" duration="2">\n<summary>Thought for 2 '
                                         'seconds</summary>\n&gt; Let me think.\n</details>\n' if turn else "")
                             + f"webui answer {turn} of chat {i}", "model": "llama3.2:latest",
                             "modelName": "llama3.2:latest", "timestamp": t + turn * 10 + 5, "done": True}
            parent = current = aid
            if turn == 0 and i % 3 == 0:
                rid = str(uuid.UUID(int=rng.getrandbits(128)))
                messages[rid] = {"id": rid, "parentId": uid, "childrenIds": [], "role": "assistant",
                                 "content": f"webui regenerated answer of chat {i}", "model": "llama3.2:latest",
                                 "timestamp": t + 8, "done": True}
                messages[uid]["childrenIds"].append(rid)
        cid = str(uuid.UUID(int=rng.getrandbits(128)))
        rows.append({"id": cid, "user_id": "u1", "title": f"WebUI chat {i}",
                     "chat": {"id": "", "title": f"WebUI chat {i}", "models": ["llama3.2:latest"], "params": {},
                              "history": {"messages": messages, "currentId": current},
                              "messages": [], "tags": [], "timestamp": t * 1000, "files": []},
                     "updated_at": t + 30, "created_at": t, "share_id": None, "archived": False, "pinned": False,
                     "meta": {}, "folder_id": None})
    return rows
