"""``desktop-agent chat --attach FILE`` (repeatable), as a user runs it: a real subprocess against a real local
server that decodes the image and echoes the text."""

from __future__ import annotations

from tests.helpers.cli import run_cli, saved_chats
from tests.helpers.files import pdf_bytes, png_bytes, write
from tests.servers.ollama import OllamaServer


def test_attach_a_pdf_and_an_image_to_a_vision_model(tmp_path):
    home = tmp_path / "home"
    server = OllamaServer(models=["llava:latest"]).start()
    server.model_facts["llava:latest"] = (8192, ["completion", "vision"])
    try:
        pdf = write(tmp_path, "report.pdf", pdf_bytes("The secret word is pelican."))
        image = write(tmp_path, "cat.png", png_bytes(6, 2))
        proc = run_cli(home, "chat", "--host", server.url, "--model", "llava", "--no-tools",
                       "--attach", str(pdf), "--attach", str(image), "-p", "What do you see?")
        assert proc.returncode == 0, proc.stderr
        assert "I see a PNG image of 6×2 pixels." in proc.stdout and "pelican" in proc.stdout
        assert server.images == [png_bytes(6, 2)]
        (chat,) = saved_chats(home)
        names = [a.name for a in chat.messages[0].attachments]
        assert names == ["report.pdf", "cat.png"]  # stored with the chat
    finally:
        server.stop()


def test_attach_a_file_that_cannot_be_used_is_a_clear_usage_error(tmp_path):
    home = tmp_path / "home"
    server = OllamaServer().start()
    try:
        binary = write(tmp_path, "tool.bin", bytes(range(256)) * 8)
        proc = run_cli(home, "chat", "--host", server.url, "--attach", str(binary), "-p", "hi")
        assert proc.returncode == 2
        assert f"--attach {binary}: not a text file, PDF or image" in proc.stderr
        missing = run_cli(home, "chat", "--host", server.url, "--attach", str(tmp_path / "nope.txt"), "-p", "hi")
        assert missing.returncode == 2 and "no such file" in missing.stderr
        cut = write(tmp_path, "cut.png", png_bytes(8, 8)[:-20])  # a PNG cut short: damaged, not sent
        damaged = run_cli(home, "chat", "--host", server.url, "--attach", str(cut), "-p", "hi")
        assert damaged.returncode == 2 and f"--attach {cut}: the file is damaged" in damaged.stderr
        assert server.chat_requests == []  # nothing was sent
    finally:
        server.stop()


def test_attach_goes_with_the_first_line_of_the_stdin_chat(tmp_path):
    home = tmp_path / "home"
    server = OllamaServer().start()
    try:
        notes = write(tmp_path, "notes.txt", "Remember the milk.")
        proc = run_cli(home, "chat", "--host", server.url, "--no-tools", "--attach", str(notes),
                       stdin="read my notes\nand again\nbye\n")
        assert proc.returncode == 0, proc.stderr
        first, second = (r["messages"][-1]["content"] for r in server.chat_requests)
        assert "--- file: notes.txt ---\nRemember the milk." in first and second == "and again"
    finally:
        server.stop()


def test_an_image_for_a_model_that_cannot_see_is_left_out_and_the_terminal_says_so(tmp_path):
    home = tmp_path / "home"
    server = OllamaServer().start()  # llama3.2: its /api/show lists no vision
    try:
        image = write(tmp_path, "cat.png", png_bytes())
        proc = run_cli(home, "chat", "--host", server.url, "--no-tools", "--attach", str(image), "-p", "what is it?")
        assert proc.returncode == 0, proc.stderr
        assert "cannot see images" in proc.stderr and "cat.png left out" in proc.stderr
        assert server.images == [] and "images" not in server.chat_requests[-1]["messages"][-1]
    finally:
        server.stop()


def test_an_image_for_a_model_its_server_says_nothing_of_is_warned_before_sending_and_still_sent(tmp_path):
    """The README's local model (llama.cpp's OpenAI-compatible server, ``smollm2``) lists no capabilities: the
    terminal warns that the model may not see the image, and sends it (the user may know better); a model known
    to see (by its name) gets no warning."""
    from tests.servers.openai import OpenAIServer

    home = tmp_path / "home"
    server = OpenAIServer(models=["smollm2", "llava-1.6"]).start()
    try:
        image = write(tmp_path, "cat.png", png_bytes(3, 2))
        proc = run_cli(home, "chat", "--backend", "openai", "--base-url", server.url, "--model", "smollm2",
                       "--no-tools", "--attach", str(image), "-p", "what is it?")
        assert proc.returncode == 0, proc.stderr
        assert "warning: smollm2 may not see images: its server does not say" in proc.stderr
        assert server.images == [png_bytes(3, 2)]  # sent anyway
        seen = run_cli(home, "chat", "--backend", "openai", "--base-url", server.url, "--model", "llava-1.6",
                       "--no-tools", "--attach", str(image), "-p", "what is it?")
        assert seen.returncode == 0, seen.stderr
        assert "may not see images" not in seen.stderr and len(server.images) == 2
    finally:
        server.stop()
