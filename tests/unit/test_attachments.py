"""Attachments: what a file becomes, how it reaches Ollama and OpenAI-compatible servers (real 127.0.0.1 servers
that decode the image and echo the text), how the store keeps it (content-addressed, removed when unused)."""

from __future__ import annotations

import os
import threading
import time

from desktop_agent.core.agent import Agent
from desktop_agent.core.attachments import TEXT_CAP_CHARS, attach_bytes, attach_file
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.events import AnswerFinished, Notice
from desktop_agent.core.messages import Conversation, Message, text_for_model
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store.attachments import ORPHAN_GRACE_S
from tests.helpers.files import pdf_bytes, png_bytes, write
from tests.servers.ollama import OllamaServer
from tests.servers.openai import OpenAIServer

# ---- what a file becomes ----------------------------------------------------------------------------


def test_text_file_becomes_text_with_its_encoding_found(tmp_path):
    utf8 = attach_file(write(tmp_path, "notes.md", "# Notes\nnaïve café — 天气\n"))
    assert (utf8.kind, utf8.problem, utf8.truncated) == ("text", None, False)
    assert "天气" in utf8.text and utf8.size == len("# Notes\nnaïve café — 天气\n".encode())
    russian = "Привет, это текстовый файл в старой кодировке Windows. Всё хорошо."
    cp1251 = attach_file(write(tmp_path, "old.txt", russian.encode("cp1251")))
    assert cp1251.kind == "text" and cp1251.text == russian
    utf16 = attach_file(write(tmp_path, "wide.txt", "\ufeffline one\nzwei".encode("utf-16-le")))
    assert utf16.kind == "text" and utf16.text.strip("\ufeff") == "line one\nzwei"
    code = attach_file(write(tmp_path, "main.py", "def f():\n    return 1\n"))
    assert code.kind == "text" and code.mime == "text/x-python"


def test_long_text_is_capped_and_says_so(tmp_path):
    a = attach_file(write(tmp_path, "big.log", "x" * (TEXT_CAP_CHARS + 500)))
    assert a.kind == "text" and a.truncated and len(a.text) == TEXT_CAP_CHARS
    sent = text_for_model(Message(role="user", content="summarise", attachments=[a]))
    assert sent.startswith("summarise\n\n--- file: big.log ---\n")
    assert "the rest of the file was left out" in sent and sent.endswith("--- end of big.log ---")


def test_pdf_becomes_its_text(tmp_path):
    a = attach_file(write(tmp_path, "report.pdf", pdf_bytes("The secret word is pelican.", "Page two says hello.")))
    assert (a.kind, a.mime, a.problem) == ("pdf", "application/pdf", None)
    assert "pelican" in a.text and "Page two" in a.text


def test_unreadable_files_say_why_and_send_nothing(tmp_path):
    pdf = pdf_bytes("The secret word is pelican.")
    cases = {
        "damaged.pdf": (pdf[: len(pdf) // 3], "damaged"),
        "tool.bin": (bytes(range(256)) * 40, "binary"),
        "empty.txt": (b"", "empty"),
        "picture.bmp": (b"BM" + bytes(100), "unsupported_image"),
    }
    for name, (data, problem) in cases.items():
        a = attach_file(write(tmp_path, name, data))
        assert (a.kind, a.problem) == ("unreadable", problem), name
        assert text_for_model(Message(role="user", content="hi", attachments=[a])) == "hi"
    assert attach_file(tmp_path / "nowhere.txt").problem == "not_found"


# ---- on the wire: real servers --------------------------------------------------------------------


def _turn(backend, text: str, attachments) -> list:
    return list(Agent(backend, None).run(Conversation(), text, threading.Event(), attachments))


def test_ollama_gets_the_image_as_base64_and_the_pdf_text(tmp_path):
    server = OllamaServer(models=["llava:latest"]).start()
    server.model_facts["llava:latest"] = (8192, ["completion", "vision"])
    try:
        backend = OllamaBackend(server.url, "llava:latest", timeout_s=10)
        image = attach_bytes("cat.png", png_bytes(4, 3))
        report = attach_file(write(tmp_path, "report.pdf", pdf_bytes("The secret word is pelican.")))
        events = _turn(backend, "What is in these?", [image, report])
        assert isinstance(events[-1], AnswerFinished), events[-1]
        sent = server.chat_requests[-1]["messages"][-1]
        assert sent["role"] == "user" and len(sent["images"]) == 1
        assert server.images == [png_bytes(4, 3)]
        assert "--- file: report.pdf ---\nThe secret word is pelican." in sent["content"]
        answer = events[-1].message.content
        assert answer.startswith("I see a PNG image of 4×3 pixels.") and "pelican" in answer
        backend.close()
    finally:
        server.stop()


def test_a_model_its_server_says_cannot_see_gets_no_image_and_the_turn_says_so():
    server = OllamaServer(models=["llama3.2:latest"]).start()  # /api/show: completion and tools, no vision
    try:
        backend = OllamaBackend(server.url, "llama3.2:latest", timeout_s=10)
        events = _turn(backend, "look", [attach_bytes("cat.png", png_bytes())])
        assert isinstance(events[-1], AnswerFinished), events[-1]
        notices = [e.text for e in events if isinstance(e, Notice)]
        assert any("cannot see images" in n and "cat.png left out" in n for n in notices), notices
        sent = server.chat_requests[-1]["messages"][-1]
        assert "images" not in sent and server.images == []
        assert sent["content"] == "look\n\n[The attached image cat.png was left out: this model cannot see images.]"
        backend.close()
    finally:
        server.stop()


def test_the_ollama_test_server_refuses_images_for_a_model_without_vision_as_ollama_does():
    import httpx

    server = OllamaServer(models=["llama3.2:latest"]).start()
    try:
        body = {"model": "llama3.2:latest", "stream": False,
                "messages": [{"role": "user", "content": "hi", "images": [__import__("base64").b64encode(
                    png_bytes()).decode()]}]}
        r = httpx.post(server.url + "/api/chat", json=body, timeout=10)
        assert r.status_code == 500 and "image input" in r.json()["error"]
    finally:
        server.stop()


def test_openai_gets_an_image_url_data_url_and_the_text_file(tmp_path):
    server = OpenAIServer(models=["gpt-4o-mini"]).start()
    try:
        backend = OpenAIBackend(server.url, "gpt-4o-mini", [], needs_key=False, retries_per_key=0, timeout_s=10)
        image = attach_bytes("chart.png", png_bytes(7, 5))
        notes = attach_file(write(tmp_path, "notes.txt", "Remember the milk."))
        events = _turn(backend, "Please look", [image, notes])
        assert isinstance(events[-1], AnswerFinished), events[-1]
        content = server.requests[-1]["messages"][-1]["content"]
        assert content[0]["type"] == "text" and "--- file: notes.txt ---\nRemember the milk." in content[0]["text"]
        assert content[1]["type"] == "image_url"
        assert content[1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
        assert server.images == [png_bytes(7, 5)]
        assert events[-1].message.content.startswith("I see a PNG image of 7×5 pixels.")
        backend.close()
    finally:
        server.stop()


def test_a_text_only_attachment_is_plain_string_content_for_openai(tmp_path):
    server = OpenAIServer(models=["m"]).start()
    try:
        backend = OpenAIBackend(server.url, "m", [], needs_key=False, retries_per_key=0, timeout_s=10)
        notes = attach_file(write(tmp_path, "a.csv", "a,b\n1,2\n"))
        events = _turn(backend, "sum it", [notes])
        assert isinstance(events[-1], AnswerFinished)
        sent = server.requests[-1]["messages"][-1]["content"]
        assert sent == "sum it\n\n--- file: a.csv ---\na,b\n1,2\n--- end of a.csv ---"
        backend.close()
    finally:
        server.stop()


# ---- storage ------------------------------------------------------------------------------------------


def _chat_with(store: ConversationStore, *attachments) -> Conversation:
    conv = Conversation()
    store.add_message(conv, Message(role="user", content="see files", attachments=list(attachments)))
    store.add_message(conv, Message(role="assistant", content="ok"))
    return conv


def _stored(store: ConversationStore) -> set[str]:
    return {name for name, _p in store.files.stored()}


def test_attachments_are_stored_once_by_content_and_load_back(tmp_path):
    store = ConversationStore(tmp_path / "db.sqlite3")
    image = attach_bytes("cat.png", png_bytes())
    pdf = attach_bytes("r.pdf", pdf_bytes("pelican"))
    broken = attach_bytes("x.bin", bytes(range(256)) * 8)
    a = _chat_with(store, image, pdf, broken)
    b = _chat_with(store, attach_bytes("same-cat.png", png_bytes()))
    assert _stored(store) == {image.sha256, pdf.sha256}
    assert store.files.path_of(image.sha256) == tmp_path / "attachments" / image.sha256[:2] / image.sha256
    store.close()

    store = ConversationStore(tmp_path / "db.sqlite3")  # reopened: the chat comes back with its files
    loaded = store.load(a.id).messages[0].attachments
    assert [(x.name, x.kind) for x in loaded] == [("cat.png", "image"), ("r.pdf", "pdf")]  # not the unreadable one
    assert loaded[0].read_bytes() == png_bytes() and loaded[1].text == "pelican"
    assert store.load(b.id).messages[0].attachments[0].name == "same-cat.png"
    assert store.attachment_bytes(pdf.sha256) == pdf.data
    store.close()


def test_files_go_when_no_chat_uses_them(tmp_path):
    store = ConversationStore(tmp_path / "db.sqlite3")
    shared = attach_bytes("cat.png", png_bytes())
    own = attach_bytes("notes.txt", b"only in chat a")
    a = _chat_with(store, shared, own)
    b = _chat_with(store, attach_bytes("cat.png", png_bytes()))
    store.delete(a.id)
    assert _stored(store) == {shared.sha256}  # still used by chat b
    assert store.read("SELECT sha256 FROM attachments") == [(shared.sha256,)]
    store.delete_message(store.load(b.id).messages[0])
    assert _stored(store) == set() and store.read("SELECT count(*) FROM attachments") == [(0,)]
    store.close()


def test_sweep_removes_files_a_crash_left_behind_but_not_one_being_saved(tmp_path):
    store = ConversationStore(tmp_path / "db.sqlite3")
    kept = attach_bytes("a.txt", b"kept")
    _chat_with(store, kept)
    old = store.files.write("a" * 64, b"left by a crash")
    fresh = store.files.write("b" * 64, b"being saved right now")
    past = time.time() - ORPHAN_GRACE_S - 60
    os.utime(old, (past, past))
    assert store.sweep_attachments() == 1
    assert _stored(store) == {kept.sha256, "b" * 64} and not old.exists() and fresh.exists()
    store.close()


def test_add_attachment_for_import_and_missing_bytes_are_told(tmp_path):
    store = ConversationStore(tmp_path / "db.sqlite3")
    a = store.add_attachment("cat.png", png_bytes())
    assert a.kind == "image" and a.data is not None and store.attachment_bytes(a.sha256) == png_bytes()
    conv = _chat_with(store, a)
    store.files.path_of(a.sha256).unlink()  # the file went missing behind our back
    loaded = store.load(conv.id).messages[0].attachments[0]
    assert loaded.problem == "missing"
    from desktop_agent.core.attachments import wire_parts

    text, images = wire_parts(store.load(conv.id).messages[0])
    assert images == [] and "cat.png could not be sent" in text
    store.close()


def test_json_export_lists_attachments_and_markdown_mentions_them(tmp_path):
    store = ConversationStore(tmp_path / "db.sqlite3")
    conv = _chat_with(store, attach_bytes("cat.png", png_bytes()), attach_bytes("notes.txt", b"milk"))
    import json

    data = json.loads(store.export(conv.id, "json"))
    listed = data["messages"][0]["attachments"]
    assert [(x["name"], x["kind"]) for x in listed] == [("cat.png", "image"), ("notes.txt", "text")]
    assert "data" not in listed[0] and "path" not in listed[0] and listed[1]["text"] == "milk"
    md = store.export(conv.id, "md")
    assert "Attached: `cat.png`, `notes.txt`" in md
    store.close()


def test_our_json_export_imports_back_with_its_files_text_and_the_files_are_searchable_by_name(tmp_path):
    store = ConversationStore(tmp_path / "db.sqlite3")
    notes = attach_bytes("quarterly-notes.txt", b"milk and eggs")
    conv = _chat_with(store, notes, attach_bytes("cat.png", png_bytes()))
    exported = tmp_path / "chat.json"
    exported.write_text(store.export(conv.id, "json"), encoding="utf-8")
    store.delete(conv.id)  # the files go with the chat …
    assert _stored(store) == set()
    new_id = store.import_file(exported).chat_ids[0]  # … and the import brings back what the export holds
    files = store.load(new_id).messages[0].attachments
    assert [(a.name, a.kind, a.text) for a in files] == [("quarterly-notes.txt", "text", "milk and eggs"),
                                                        ("cat.png", "image", "")]
    assert files[1].problem is None and files[1].read_bytes() == png_bytes()  # the export carries the bytes
    assert text_for_model(store.load(new_id).messages[0]).endswith("milk and eggs\n--- end of quarterly-notes.txt ---")
    hits = store.search("quarterly-notes")
    assert [h.conversation_id for h in hits] == [new_id]
    store.close()


def test_whether_a_model_sees_comes_from_its_server_else_from_its_name():
    from desktop_agent.core.model_info import ModelFacts
    from desktop_agent.core.vision import sight

    silent = ModelFacts()  # an OpenAI-compatible server (llama.cpp, vLLM…) lists no capabilities
    for name in ("llava:13b", "bakllava", "moondream", "gemma3:4b", "gemma-3-12b-it", "qwen2.5vl:7b",
                 "Qwen/Qwen2-VL-7B-Instruct", "llama3.2-vision:11b", "minicpm-v", "pixtral-12b",
                 "mistral-small3.1:24b", "granite3.2-vision", "gpt-4o-mini", "gpt-4.1", "gpt-5", "o3", "o4-mini",
                 "claude-sonnet-4-5", "gemini-2.5-flash"):
        assert sight(name, silent) == "yes", name
    for name in ("smollm2", "llama3.2:latest", "gemma3:1b", "gemma-3-1b-it", "qwen2.5:7b", "mistral:7b",
                 "gpt-3.5-turbo", "deepseek-r1", "phi3"):
        assert sight(name, silent) == "unknown", name
    assert sight("llava", ModelFacts(capabilities=frozenset({"completion"}))) == "no"  # the server says
    assert sight("smollm2", ModelFacts(capabilities=frozenset({"completion", "vision"}))) == "yes"


def test_a_cut_or_garbled_image_is_damaged_and_not_sent_and_a_whole_one_of_any_size_is_sent(tmp_path):
    import struct
    import zlib

    from tests.helpers.files import huge_png

    noisy = png_bytes(64, 64)
    text = b"Comment\x00" + bytes(range(256)) * 2  # a chunk that makes the file long enough to cut at 200 bytes
    noisy = noisy[:33] + struct.pack(">I", len(text)) + b"tEXt" + text + struct.pack(
            ">I", zlib.crc32(b"tEXt" + text) & 0xFFFFFFFF) + noisy[33:]
    assert attach_bytes("ok.png", noisy).kind == "image"
    jpeg = (b"\xff\xd8\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
            + b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, 1, 1, 1) + b"\x01\x11\x00"
            + b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00\x00\x3f\x00" + b"\x12\x34" + b"\xff\xd9")
    gif = (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00"
           b"\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
    webp = b"RIFF" + struct.pack("<I", 4 + 8 + 10) + b"WEBP" + b"VP8L" + struct.pack("<I", 10) + b"\x2f" + b"\x00" * 9
    for name, whole in (("a.jpg", jpeg), ("a.gif", gif), ("a.webp", webp)):
        assert attach_bytes(name, whole).kind == "image", name
    damaged = {"cut.png": noisy[:200], "junk.png": b"\x89PNG\r\n\x1a\n" + os.urandom(500),
               "flipped.png": noisy[:60] + bytes([noisy[60] ^ 0xFF]) + noisy[61:],
               "cut.jpg": jpeg[:-4], "junk.jpg": b"\xff\xd8\xff" + os.urandom(300),
               "cut.gif": gif[:-1], "cut.webp": webp[:-4]}
    for name, data in damaged.items():
        a = attach_bytes(name, data)
        assert (a.kind, a.problem) == ("unreadable", "damaged"), name
        assert text_for_model(Message(role="user", content="hi", attachments=[a])) == "hi"  # nothing of it sent
    path = write(tmp_path, "huge.png", huge_png())
    big = attach_file(path)
    assert (big.kind, big.problem, big.mime) == ("image", None, "image/png")  # whole: sent, never "damaged"
