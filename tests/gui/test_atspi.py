"""The accessible names, read over AT-SPI as a screen reader reads them: the app runs in a real window (Xvfb,
``xcb``) with Qt's AT-SPI bridge on, inside a private D-Bus session with the accessibility bus of
``at-spi2-core``; the test reads the tree over that bus with plain ``dbus-send`` calls, types a message and
presses Send through the bus (as an assistive technology can), and hears the "Answer finished" announcement.

Without the tools (dbus-daemon, at-spi-bus-launcher, Xvfb) the tests skip — and fail where the run expects
them (``DESKTOP_AGENT_EXPECT_TOOLS=1``, scripts/test.sh and CI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.core import paths
from desktop_agent.core.settings import Settings
from tests.helpers.atspi import A11yBus, Listener, Node, Ref, desktop, find_app, need_tools
from tests.helpers.replies import text_lines, tool_call_lines

ROOT = Path(__file__).resolve().parents[2]
#: controls of the main window a screen reader must be able to name (the same names the in-process walk sees)
EXPECTED = {"Message input", "Send", "Tools", "Temperature", "JSON format", "Conversation", "Model name",
            "Search all chats", "Saved chats", "Import chat"}


@pytest.fixture
def running_app(tmp_path, ollama_server):
    """The app as a user starts it (``python -m desktop_agent``, default settings but a tools folder with a
    tool that asks for approval; the scripted Ollama server as its ``OLLAMA_HOST``) on a private accessibility
    bus: ``(bus, app ref, process)``."""
    need_tools()
    home = tmp_path / "home"
    tools = tmp_path / "ask_tools"
    tools.mkdir()
    (tools / "asking.py").write_text(
        "from desktop_agent import tool\n\n@tool(requires_approval=True)\ndef launch(target: str) -> str:\n"
        '    """Launch something (needs the user\'s approval)."""\n    return f"launched {target}"\n',
        encoding="utf-8")
    paths.set_home(home)
    try:  # the default settings, and a folder with one tool that asks before it runs
        Settings(tools_dirs=[str(tools)]).save(paths.settings_file())
    finally:
        paths.set_home(None)
    with desktop(tmp_path) as d:
        env = {k: v for k, v in d.env.items() if not k.startswith(("OPENAI_", "OLLAMA_", "DESKTOP_AGENT_", "QT_"))}
        env.update(QT_QPA_PLATFORM="xcb", QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1", OLLAMA_HOST=ollama_server.url,
                   DESKTOP_AGENT_HOME=str(home), PYTHONPATH=str(ROOT),
                   PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
        log = (tmp_path / "app.log").open("w")
        app = subprocess.Popen([sys.executable, "-m", "desktop_agent"], env=env, cwd=ROOT, stdout=log, stderr=log)
        try:
            ref = find_app(d.a11y, "desktop-agent", timeout=60)
            yield d.a11y, ref, app
        finally:
            app.terminate()
            try:
                app.wait(timeout=20)
            except subprocess.TimeoutExpired:
                app.kill()
                app.wait()
            log.close()


def window_tree(a11y: A11yBus, app: Ref, qtbot, expected: set[str] = EXPECTED) -> Node:
    """The app's tree once it shows the ``expected`` names (the chat strip is built after the first frame)."""
    tree: Node | None = None

    def complete() -> bool:
        nonlocal tree
        tree = a11y.tree(app)
        return {n.name for n in tree.all()} >= expected

    qtbot.waitUntil(complete, timeout=60_000)
    assert tree is not None
    return tree


def assert_all_named(tree: Node) -> int:
    focusable = [n for n in tree.all() if n.focusable_and_showing]
    unnamed = [f"role {n.role} at {n.ref.path} (depth {n.depth})" for n in focusable if not n.name.strip()]
    assert not unnamed, "focusable controls without a name over AT-SPI:\n" + "\n".join(unnamed)
    return len(focusable)


def test_the_names_are_on_the_at_spi_bus(qtbot, running_app):
    a11y, app, _proc = running_app
    assert assert_all_named(window_tree(a11y, app, qtbot)) > 10
    # Settings, opened by pressing the toolbar's button through the bus
    a11y.call(a11y.find(a11y.tree(app), "Settings"), "org.a11y.atspi.Action.DoAction", "int32:0")
    settings = window_tree(a11y, app, qtbot, {"Settings sections", "Ollama host URL", "Save settings"})
    assert assert_all_named(settings) > 15  # the window's and the dialog's


def test_a_finished_answer_is_announced(qtbot, running_app, ollama_server):
    """A message typed and sent through the bus (EditableText, Action: what an assistive technology can do);
    the answer's end is announced: Qt's announcement event, AT-SPI's ``Announcement`` signal."""
    a11y, app, _proc = running_app
    tree = window_tree(a11y, app, qtbot)
    listener = Listener(a11y.address)
    try:
        ollama_server.script(text_lines(["Fine, ", "thanks."]))
        box, send = a11y.find(tree, "Message input"), a11y.find(tree, "Send")
        assert "true" in a11y.call(box, "org.a11y.atspi.EditableText.SetTextContents", "string:how are you")
        qtbot.waitUntil(lambda: "how are you" in a11y.call(box, "org.a11y.atspi.Text.GetText", "int32:0",
                                                               "int32:-1"), timeout=10_000)
        a11y.call(send, "org.a11y.atspi.Action.DoAction", "int32:0")
        qtbot.waitUntil(lambda: "Answer finished" in listener.heard, timeout=30_000)
        assert ollama_server.chat_requests[-1]["messages"][-1]["content"] == "how are you"
    finally:
        listener.close()


def test_an_approval_card_is_announced_named_and_answered_over_the_bus(qtbot, tmp_path, ollama_server, running_app):
    """A tool call that needs approval: the card is announced, its buttons are named on the bus, and pressing
    "Allow once" through the bus runs the call."""
    a11y, app, _proc = running_app
    window_tree(a11y, app, qtbot)
    listener = Listener(a11y.address)
    try:
        ollama_server.script(tool_call_lines("launch", {"target": "moon"}), text_lines(["Launched."]))
        tree = a11y.tree(app)
        box, send = a11y.find(tree, "Message input"), a11y.find(tree, "Send")
        a11y.call(box, "org.a11y.atspi.EditableText.SetTextContents", "string:launch it")
        qtbot.waitUntil(lambda: "launch it" in a11y.call(box, "org.a11y.atspi.Text.GetText", "int32:0",
                                                             "int32:-1"), timeout=10_000)
        a11y.call(send, "org.a11y.atspi.Action.DoAction", "int32:0")
        qtbot.waitUntil(lambda: any(h.startswith("launch asks for your approval") for h in listener.heard),
                        timeout=30_000)
        card = window_tree(a11y, app, qtbot, {"Allow once launch", "Deny launch", "Reason for denying"})
        assert_all_named(card)
        a11y.call(a11y.find(card, "Allow once launch"), "org.a11y.atspi.Action.DoAction", "int32:0")
        qtbot.waitUntil(lambda: "Answer finished" in listener.heard, timeout=30_000)
        tool_results = [m for m in ollama_server.chat_requests[-1]["messages"] if m["role"] == "tool"]
        assert tool_results and "launched moon" in tool_results[-1]["content"]
    finally:
        listener.close()
