"""What the app learns about a server and model holds across runs: each ``desktop-agent chat -p`` is a new
process, and relearning that the README's local model cannot stream with tools cost every run an extra,
slow request (a new user measured 16–41 s per run)."""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

from desktop_agent.core import paths, state
from desktop_agent.core.assembly import build_agent
from desktop_agent.core.capabilities import Capabilities, Learned
from desktop_agent.core.settings import Settings

BACKEND = SimpleNamespace(name="openai", base_url="http://127.0.0.1:8080/v1", model="smollm2")


def test_a_lesson_is_read_back_by_a_new_store(tmp_path):
    path = tmp_path / "capabilities.json"
    first = Capabilities()
    first.use_file(path)
    first.learn(BACKEND, stream_with_tools=False)
    first.learn(BACKEND, stream_with_tools=False)
    again = Capabilities()
    again.use_file(path)
    assert again.learned(BACKEND) == Learned(stream_with_tools=False, auto_tools=True)
    other = SimpleNamespace(name="openai", base_url="http://127.0.0.1:8080/v1", model="other")
    assert again.learned(other) == Learned()


def test_a_damaged_file_counts_as_nothing_learned_and_is_replaced(tmp_path, caplog):
    path = tmp_path / "capabilities.json"
    for damaged in ("{not json", '{"learned": [{"backend": "openai"}]}', "[]", '{"learned": 3}'):
        path.write_text(damaged, encoding="utf-8")
        caps = Capabilities()
        caps.use_file(path)
        assert caps.learned(BACKEND) == Learned()
        caps.learn(BACKEND, auto_tools=False)
        caps.learn(BACKEND, auto_tools=False)
        assert json.loads(path.read_text(encoding="utf-8"))["learned"][0]["auto_tools"] is False


def test_an_unwritable_folder_is_logged_not_raised(tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    caps = Capabilities()
    caps.use_file(blocker / "capabilities.json")
    caps.learn(BACKEND, stream_with_tools=False)
    caps.learn(BACKEND, stream_with_tools=False)  # the folder cannot be made: the lesson still counts
    assert caps.learned(BACKEND).stream_with_tools is False
    assert "could not be saved" in caplog.text


def test_the_assembly_keeps_lessons_in_the_cache_folder_for_the_next_process(tmp_path):
    paths.set_home(tmp_path)
    try:
        build_agent(Settings(), BACKEND, None)  # type: ignore[arg-type]
        state.LEARNED.learn(BACKEND, stream_with_tools=False)
        state.LEARNED.learn(BACKEND, stream_with_tools=False)
        assert (paths.cache_dir() / "capabilities.json").exists()
        code = (
            "from types import SimpleNamespace\n"
            "from desktop_agent.core import paths\n"
            "from desktop_agent.core.assembly import build_agent\n"
            "from desktop_agent.core import state\n"
            "from desktop_agent.core.settings import Settings\n"
            f"paths.set_home({str(tmp_path)!r})\n"
            "b = SimpleNamespace(name='openai', base_url='http://127.0.0.1:8080/v1', model='smollm2')\n"
            "build_agent(Settings(), b, None)\n"
            "print(state.LEARNED.learned(b).stream_with_tools)\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
        assert out.stdout.strip() == "False"
    finally:
        state.LEARNED.clear()
        paths.set_home(None)


def test_localhost_and_127_0_0_1_are_one_server(tmp_path):
    """The README says 127.0.0.1, the window's preset localhost: what was learned holds for both."""
    caps = Capabilities()
    for _ in range(2):
        caps.learn(SimpleNamespace(name="openai", base_url="http://localhost:8080/v1", model="smollm2"),
                   stream_with_tools=False)
    assert caps.learned(BACKEND).stream_with_tools is False
