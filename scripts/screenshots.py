#!/usr/bin/env python3
"""Regenerate the README screenshots in docs/screenshots/ against a local Ollama protocol server.

    python scripts/screenshots.py                      # offscreen (QWidget.grab)
    xvfb-run -a -s '-screen 0 1280x800x24' env QT_QPA_PLATFORM=xcb python scripts/screenshots.py
    python scripts/screenshots.py --out /tmp/shots --only main,dark
    python scripts/screenshots.py --language zh_CN --only main,settings   # main-zh_CN.png, settings-zh_CN.png

Shots: empty.png (a new chat), main.png (markdown, a code block, thinking and two tool calls),
tool-call.png (a tool still running, live duration in the sidebar), error.png (a missing model with
its Pull action), settings.png (the Settings dialog pulling a model), settings-tools.png (Settings → Tools:
the installed tools and the folders tools may use), dark.png (main.png in the dark
palette), approval-card.png (a file write waiting for approval, with its diff), settings-tools-rules.png
(Settings → Tools → Permissions), settings-appearance.png (Settings → Appearance: theme and
language), branches.png (a regenerated answer: ‹ 2/3 › on its second version, continued),
import-preview.png / import-progress.png (File → Import chats… of a 3,000-chat ChatGPT export),
attachments.png (a sent image and PDF as chips, and files waiting in the compose box),
mcp-form.png (an MCP server's question as a form in the chat; ``--only mcp-form-dark``: the same in the
dark palette). The replies are scripted, so the pictures are the same on every run (except the clock in
the message headers).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["DESKTOP_AGENT_HOME"] = tempfile.mkdtemp(prefix="da-shots-")
os.environ.pop("OLLAMA_HOST", None)

import desktop_agent.ui  # noqa: E402,F401  (PySide6 6.12 refcount guard first)

# isort: split
from PySide6.QtCore import QEventLoop  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_agent.core.settings import Settings  # noqa: E402
from desktop_agent.ui import i18n, icons, theme  # noqa: E402
from desktop_agent.ui.main_window import MainWindow  # noqa: E402
from tests.servers.ollama import OllamaServer  # noqa: E402

SIZE = (1280, 800)

QUESTION = (
    "What day of the week was 1969-07-20, and what is 21.5 °C in °F? "
    "Then show me the conversion as a Python function."
)

ANSWER = textwrap.dedent(
    '''\
    **20 July 1969** was a **Sunday** — the day of the Apollo 11 Moon landing.

    21.5 °C is **70.7 °F**. The formula is `F = C × 9/5 + 32`:

    ```python
    def celsius_to_fahrenheit(celsius: float) -> float:
        """Convert a temperature from °C to °F."""
        return celsius * 9 / 5 + 32


    print(celsius_to_fahrenheit(21.5))  # 70.7
    ```

    | °C | °F |
    |---:|---:|
    | 0 | 32 |
    | 21.5 | 70.7 |
    | 100 | 212 |
    '''
)

THINKING = ("Two facts are needed: the weekday of 1969-07-20 and 21.5 °C in °F. I'll use the "
            "day_of_week and calculator tools, then answer with a small Python function.")

#: the same conversation and history in Simplified Chinese (--language zh_CN): a Chinese user's chats
CHINESE = {
    "QUESTION": "1969-07-20 是星期几?21.5 °C 等于多少 °F?再把换算写成一个 Python 函数。",
    "THINKING": "需要两个事实:1969-07-20 是星期几,以及 21.5 °C 换算成 °F。我会用 day_of_week 和 calculator 工具,"
                "然后用一个小的 Python 函数回答。",
    "ANSWER": textwrap.dedent(
        '''\
        **1969 年 7 月 20 日**是**星期日** — 阿波罗 11 号登月的那一天。

        21.5 °C 等于 **70.7 °F**。公式是 `F = C × 9/5 + 32`:

        ```python
        def celsius_to_fahrenheit(celsius: float) -> float:
            """把摄氏度换算成华氏度。"""
            return celsius * 9 / 5 + 32


        print(celsius_to_fahrenheit(21.5))  # 70.7
        ```

        | °C | °F |
        |---:|---:|
        | 0 | 32 |
        | 21.5 | 70.7 |
        | 100 | 212 |
        '''
    ),
    "SEED_CHATS": (
        ("规划一个里斯本周末", 26 * 3600),
        ("匹配 ISO 8601 日期的正则表达式", 2 * 86400),
        ("解释 Python 的 GIL", 3 * 86400),
        ("用 jq 把 CSV 转成 JSON", 9 * 86400),
        ("为什么我的 Docker 构建很慢?", 12 * 86400),
    ),
}

SLOW_TOOL = textwrap.dedent(
    '''\
    import time
    from desktop_agent import tool

    @tool
    def search_files(pattern: str, folder: str = "~/projects") -> list[str]:
        """Find files whose name matches a glob pattern (a slow demo tool)."""
        time.sleep(30)
        return []
    '''
)


SEED_CHATS = (
    ("Plan a weekend in Lisbon", 26 * 3600),
    ("Regex for ISO 8601 dates", 2 * 86400),
    ("Explain Python's GIL", 3 * 86400),
    ("Convert a CSV to JSON with jq", 9 * 86400),
    ("Why is my Docker build slow?", 12 * 86400),
)


def fresh_home() -> None:
    """Each shot starts from a fresh data folder holding a few older chats, so the history panel looks
    like a real user's (and shots don't see each other's chats)."""
    from desktop_agent.core import paths

    paths.set_home(tempfile.mkdtemp(prefix="da-shots-"))
    seed_history()


def seed_history() -> None:
    from unittest import mock

    from desktop_agent.core.messages import Conversation, Message
    from desktop_agent.core.store import ConversationStore

    store = ConversationStore()
    now = time.time()
    for title, age in SEED_CHATS:
        conv = Conversation(title=title, model="llama3.2", backend="ollama")
        t = now - age
        # the store stamps "now"
        with mock.patch("desktop_agent.core.store.conversations.time.time", return_value=t):
            for role, text in (("user", title), ("assistant", "…")):
                store.add_message(conv, Message(role=role, content=text, created_at=t, model="llama3.2"))
    store.close()


def words(text: str) -> list[str]:
    import re

    return re.findall(r"\S+\s*|\s+", text)


def line(**message) -> dict:
    return {"message": {"role": "assistant", "content": "", **message}, "done": False}


def done() -> dict:
    return {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}


def spin(app: QApplication, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.005)


def wait_until(app: QApplication, predicate, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError("screenshot scenario did not reach its state")
        spin(app, 0.05)


def new_window(app: QApplication, settings: Settings) -> MainWindow:
    w = MainWindow(settings, check_server=True)
    w.resize(*SIZE)
    w.show()
    spin(app, 0.6)
    return w


def save(app: QApplication, w: MainWindow, path: Path) -> None:
    spin(app, 0.4)
    w.grab().save(str(path))
    print(f"wrote {path}")


def main_conversation(app: QApplication, server: OllamaServer, settings: Settings) -> MainWindow:
    server.chunk_delay_s = 0.03
    server.script(
        [
            *[line(thinking=w) for w in words(THINKING)],
            line(tool_calls=[
                {"function": {"name": "day_of_week", "arguments": {"date": "1969-07-20"}}},
                {"function": {"name": "calculator", "arguments": {"expression": "21.5 * 9 / 5 + 32"}}},
            ]),
            done(),
        ],
        [line(content=w) for w in words(ANSWER)] + [done()],
    )
    w = new_window(app, settings)
    w.send(QUESTION)
    wait_until(app, lambda: not w.busy)
    # select the calculator call in the sidebar, like a user checking the tool's result
    runs = list(w.sidebar.runs)
    if len(runs) > 1:
        w.sidebar.select_call(runs[1])
    w.chat.verticalScrollBar().setValue(0)
    return w


def shot_empty(app, server, settings, out):
    w = new_window(app, settings)
    save(app, w, out / "empty.png")
    w.close()


def shot_main(app, server, settings, out, name="main.png"):
    w = main_conversation(app, server, settings)
    save(app, w, out / name)
    w.close()


def shot_tool_call(app, server, settings, out):
    tools = Path(tempfile.mkdtemp(prefix="da-shot-tools-"))
    (tools / "demo_tools.py").write_text(SLOW_TOOL, encoding="utf-8")
    s = settings.updated({"tools.dirs": [str(tools)]})
    server.chunk_delay_s = 0.02
    server.script(
        [
            line(tool_calls=[{"function": {"name": "day_of_week", "arguments": {"date": "2025-12-24"}}}]),
            done(),
        ],
        [line(content=w) for w in words("Christmas Eve 2025 is a **Wednesday**. Now let me look for your notes.")]
        + [line(tool_calls=[{"function": {"name": "search_files",
                                          "arguments": {"pattern": "*holiday*.md", "folder": "~/notes"}}}]),
           done()],
    )
    w = new_window(app, s)
    w.send("Which weekday is Christmas Eve this year? And find my holiday notes.")
    wait_until(app, lambda: any(r.status == "running" for r in w.sidebar.runs.values()))
    spin(app, 2.4)  # the live duration ticks in the sidebar and the chat
    save(app, w, out / "tool-call.png")
    w.close()


def shot_error(app, server, settings, out):
    server.strict_models = True
    s = settings.updated({"ollama.model": "llama2"})
    w = new_window(app, s)
    w.send("Summarise the Apollo 11 mission in three bullet points.")
    wait_until(app, lambda: not w.busy and bool(w.chat.error_cards()))
    save(app, w, out / "error.png")
    w.close()
    server.strict_models = False


def shot_settings(app, server, settings, out):
    """The Settings dialog at its default size: connected to Ollama, three models installed, a pull at
    about half way."""
    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.ui.settings.dialog import SettingsDialog
    from tests.helpers.keyrings import DictKeyring
    from tests.servers.ollama import model_entry

    installed = list(server.models)
    server.models = [model_entry("llama3.2:latest"), model_entry("qwen3:8b", size=5_225_376_047),
                     model_entry("mistral-small3.2:24b", size=15_177_384_862)]
    server.pull_steps, server.pull_delay_s = 40, 0.25
    dialog = SettingsDialog(settings, SecretStore(keyring_backend=DictKeyring()))
    try:
        dialog.show()
        dialog.ollama_page.test_connection()
        wait_until(app, lambda: bool(dialog.ollama_page._connected))  # in any language
        dialog.ollama_page.models.table.selectRow(0)
        dialog.start_pull("qwen3:0.6b")
        wait_until(app, lambda: dialog.ollama_page.pull.progress.value() >= 550)
        spin(app, 0.1)
        dialog.grab().save(str(out / "settings.png"))
        print(f"wrote {out / 'settings.png'}")
    finally:
        dialog.cancel_pull()
        dialog.shutdown()
        dialog.close()
        dialog.deleteLater()
        server.models, server.pull_steps, server.pull_delay_s = installed, 5, 0.0


def shot_settings_tools(app, server, settings, out):
    """Settings → Tools: a folder the file tools may use, a tool switched off, one tool expanded to its
    parameters."""
    from desktop_agent.core import paths
    from desktop_agent.ui.settings.dialog import TOOLS_TAB, SettingsDialog

    docs = Path(os.environ["DESKTOP_AGENT_HOME"]) / "Documents"
    docs.mkdir(exist_ok=True)
    s = settings.updated({"tools.allowed_folders": [str(docs)], "tools.disabled": ["run_shell_command"]})
    dialog = SettingsDialog(s, auto_refresh=False, settings_path=paths.config_dir() / "unused.json")
    try:
        dialog.tabs.setCurrentIndex(TOOLS_TAB)
        dialog.resize(760, 920)
        dialog.show()
        tool_list = dialog.tools_page.tool_list
        wait_until(app, lambda: tool_list.tree.topLevelItemCount() > 0)
        dialog.tools_page.sections.setCurrentIndex(1)  # the installed tools
        tool_list.item("today").setExpanded(True)
        spin(app, 0.1)
        dialog.grab().save(str(out / "settings-tools.png"))
        print(f"wrote {out / 'settings-tools.png'}")
    finally:
        dialog.shutdown()
        dialog.close()
        dialog.deleteLater()


def shot_appearance(app, server, settings, out):
    """Settings → Appearance: the theme and the window's language (its choice changed, so the restart note shows)."""
    from desktop_agent.core import paths
    from desktop_agent.ui.settings.dialog import APPEARANCE_TAB, SettingsDialog

    dialog = SettingsDialog(settings, auto_refresh=False, settings_path=paths.config_dir() / "unused.json")
    try:
        dialog.tabs.setCurrentIndex(APPEARANCE_TAB)
        dialog.resize(720, 420)
        dialog.show()
        page = dialog.appearance_page
        page.language.setCurrentIndex(page.language.findData("en" if page.language_choice() != "en" else "zh_CN"))
        spin(app, 0.2)
        dialog.grab().save(str(out / "settings-appearance.png"))
        print(f"wrote {out / 'settings-appearance.png'}")
    finally:
        dialog.shutdown()
        dialog.close()
        dialog.deleteLater()


def shot_approval(app, server, settings, out):
    """A destructive file write waiting for the user: the diff against the file's current text."""
    notes = Path(tempfile.mkdtemp(prefix="notes-"))
    todo = notes / "todo.md"
    todo.write_text("# Weekend\n\n- buy milk\n- call the plumber\n- water the plants\n", encoding="utf-8")
    s = settings  # the shipped write_text_file (destructive: it asks)
    server.chunk_delay_s = 0.01
    new = "# Weekend\n\n- buy milk\n- buy bread\n- call the plumber (Saturday 10:00)\n- water the plants\n"
    server.script([
        *[line(content=w) for w in words("I'll add the bread and the plumber's time to your list.")],
        line(tool_calls=[{"function": {"name": "write_text_file", "arguments": {"path": str(todo), "content": new}}}]),
        done(),
    ])
    w = new_window(app, s)
    w.send("Add bread to my weekend list, and note the plumber comes Saturday at 10.")
    wait_until(app, lambda: bool(w.chat.live and w.chat.live.approvals))
    spin(app, 0.5)
    w.chat.verticalScrollBar().setValue(w.chat.verticalScrollBar().maximum())
    save(app, w, out / "approval-card.png")
    w.stop()
    wait_until(app, lambda: not w.busy)
    w.close()


def shot_rules(app, server, settings, out):
    """Settings → Tools, scrolled to the permission rules (made by "Always allow", one edited to deny)."""
    from desktop_agent.core.assembly import Assembly
    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.core.store import ConversationStore
    from desktop_agent.core.tools.permissions import Scope
    from desktop_agent.ui.settings.dialog import TOOLS_TAB, SettingsDialog
    from tests.helpers.keyrings import DictKeyring

    store = ConversationStore()
    assembly = Assembly(secrets=SecretStore(keyring_backend=DictKeyring()))
    assembly.use_store(store)
    rules = assembly.permissions.rules
    home = os.path.expanduser("~")
    rules.touch(rules.add("write_text_file", Scope("path", f"{home}/notes"), "allow").id)
    rules.add("fetch_url", Scope("host", "docs.python.org"), "allow")
    rules.touch(rules.add("run_shell_command", Scope("command", "git"), "allow").id)
    rules.add("run_shell_command", Scope("command", "rm"), "deny")
    rules.add("delete_everything", Scope("tool"), "ask")
    dialog = SettingsDialog(settings, assembly.secrets, assembly=assembly)
    try:
        dialog.show()
        dialog.tabs.setCurrentIndex(TOOLS_TAB)
        spin(app, 0.3)
        page = dialog.tools_page
        page.sections.setCurrentWidget(page.rules_box)
        page.rules_box.table.selectRow(2)
        spin(app, 0.3)
        dialog.grab().save(str(out / "settings-tools-rules.png"))
        print(f"wrote {out / 'settings-tools-rules.png'}")
    finally:
        dialog.shutdown()
        dialog.close()
        dialog.deleteLater()
        store.close()


def shot_quick_ask(app, server, settings, out):
    """`desktop-agent ask`: the quick-ask window with an answer (the main window hidden, as when started alone)."""
    from desktop_agent.ui.quick_ask import quick_ask_of

    server.chunk_delay_s = 0.02
    server.script([line(content=w) for w in words(
        "Three ways:\n\n1. `sorted(xs)` returns a new list\n2. `xs.sort()` sorts the list in place\n"
        "3. `heapq.nsmallest(k, xs)` when you need only the first *k*")] + [done()])
    w = MainWindow(settings, check_server=False)
    w.startup.start()
    qa = quick_ask_of(w)
    qa.present("How do I sort a list in Python?")
    wait_until(app, lambda: qa.session is not None and not qa.busy)
    spin(app, 0.4)
    qa.grab().save(str(out / "quick-ask.png"))
    print(f"wrote {out / 'quick-ask.png'}")
    qa.close()
    qa.shutdown()
    w.close()


def shot_branches(app, server, settings, out):
    """A regenerated answer: three versions of it, the second shown (‹ 2/3 ›), and the chat continued from it."""
    server.chunk_delay_s = 0.01
    question = "Suggest a name for a small bakery by the sea."
    answers = ["**Salt & Crumb** — short, and it says both *sea* and *bread*.",
               "**The Tide Loaf** — a little pun customers remember; it fits a sign and a paper bag.",
               "**Harbour Oven** — plain and warm; good if the shop faces the port."]
    server.script(*[[line(content=w) for w in words(a)] + [done()] for a in answers],
                  [line(content=w) for w in words("A hand-drawn wave under the word *Tide*, in deep blue on cream "
                                                    "paper; the loaf sits on the crest.")] + [done()])
    w = new_window(app, settings)
    w.send(question)
    wait_until(app, lambda: not w.busy)
    for _ in range(2):
        turn = w.chat.blocks[-1]
        w.controller.regenerate(turn.messages[0])
        wait_until(app, lambda: not w.busy)
    w.chat.blocks[-1].switcher.prev.click()
    wait_until(app, lambda: w.chat.blocks[-1].switcher.label.text() == "2/3")
    w.send("And a logo idea for that one?")
    wait_until(app, lambda: not w.busy)
    w.chat.verticalScrollBar().setValue(0)
    save(app, w, out / "branches.png")
    w.close()


def shot_import(app, server, settings, out):
    """File → Import chats… of a ChatGPT export: the preview, then the progress bar (the dialog drawn over the
    window, where the desktop shows it)."""
    import json

    from PySide6.QtGui import QColor, QPainter

    from tests.helpers.chat_exports import chatgpt_export

    folder = Path(tempfile.mkdtemp(prefix="da-shots-")) / "Downloads"
    folder.mkdir()
    path = folder / "conversations.json"
    path.write_text(json.dumps(chatgpt_export(3000, seed=11)), encoding="utf-8")
    w = new_window(app, settings)
    dialog = w.history_panel.import_chat(str(path))

    def composed(name: str) -> None:
        spin(app, 0.2)
        shot = w.grab()
        painter = QPainter(shot)
        inner = dialog.grab()
        x, y = (shot.width() - inner.width()) // 2, (shot.height() - inner.height()) // 3
        painter.drawPixmap(x, y, inner)
        painter.setPen(QColor("#8a8f98"))  # the frame a window manager draws
        painter.drawRect(x - 1, y - 1, inner.width() + 1, inner.height() + 1)
        painter.end()
        shot.save(str(out / name))
        print(f"wrote {out / name}")

    wait_until(app, lambda: dialog.state == "preview", timeout=120)
    composed("import-preview.png")
    dialog.start_import()
    wait_until(app, lambda: dialog.progress.value() >= 900 or dialog.state != "importing", timeout=120)
    composed("import-progress.png")
    wait_until(app, lambda: dialog.state == "done", timeout=300)
    w.close()


def _chart_png() -> bytes:
    """A small bar chart, as a user might attach one."""
    from PySide6.QtCore import QBuffer, QByteArray, QRect, Qt
    from PySide6.QtGui import QColor, QImage, QImageWriter, QPainter

    image = QImage(480, 300, QImage.Format.Format_RGB32)
    image.fill(QColor("#ffffff"))
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(QColor("#333333"))
    p.drawText(QRect(0, 8, 480, 24), Qt.AlignmentFlag.AlignCenter, "Visitors per quarter")
    for i, (h, colour) in enumerate(((90, "#4e79a7"), (150, "#59a14f"), (120, "#f28e2b"), (210, "#e15759"))):
        p.fillRect(60 + i * 100, 270 - h, 60, h, QColor(colour))
        p.drawText(QRect(60 + i * 100, 272, 60, 20), Qt.AlignmentFlag.AlignCenter, f"Q{i + 1}")
    p.drawLine(40, 270, 460, 270)
    p.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QBuffer.OpenModeFlag.WriteOnly)
    QImageWriter(buffer, QByteArray(b"PNG")).write(image)
    return bytes(data.data())


def shot_attachments(app, server, settings, out):
    """A sent message with an image and a PDF (chips in its bubble), the answer that used them, and the compose
    box holding the next message's files (a text file, and one that cannot be used)."""
    from tests.helpers.files import pdf_bytes

    folder = Path(tempfile.mkdtemp(prefix="da-shots-files-"))
    (folder / "visitors-q1-q4.png").write_bytes(_chart_png())
    (folder / "board-report.pdf").write_bytes(pdf_bytes("Board report: visitors grew 2.3x over the year.",
                                                        "Q4 was the best quarter; Q2 had the marketing push."))
    (folder / "notes.md").write_text("# Next steps\n- hire two people\n- open the Porto office\n", encoding="utf-8")
    (folder / "backup.tar.gz").write_bytes(bytes(range(256)) * 64)
    server.model_facts["llama3.2"] = server.model_facts["llama3.2:latest"] = (131072, ["completion", "tools", "vision"])
    server.chunk_delay_s = 0.02
    server.script([line(content=w) for w in words(
        "The chart shows visitors rising through the year: **Q4 is the highest** (about 2.3× Q1), with a dip in "
        "Q3 after Q2's marketing push. That matches the board report, which says visitors grew 2.3× over the "
        "year and calls Q4 the best quarter.")] + [done()])
    w = new_window(app, settings)
    wait_until(app, lambda: w.capabilities.facts.get(w.settings.model) is not None)
    tray = w.composer.tray
    tray.add_paths([str(folder / "visitors-q1-q4.png"), str(folder / "board-report.pdf")])
    wait_until(app, lambda: not tray.reading())
    w.send("Does the chart agree with the report?")
    wait_until(app, lambda: not w.busy)
    tray.add_paths([str(folder / "notes.md"), str(folder / "backup.tar.gz")])
    wait_until(app, lambda: not tray.reading())
    w.input.setPlainText("Turn my notes into a plan")
    save(app, w, out / "attachments.png")
    w.close()
    del server.model_facts["llama3.2"], server.model_facts["llama3.2:latest"]


def shot_mcp_form(app, server, settings, out, name="mcp-form.png"):
    """An MCP server (tests/mcp_servers/asking.py) asks for a table booking during its tool call: the form in
    the chat beside the call, its name filled in, one value out of range."""
    from desktop_agent.core.settings import McpServerSettings

    asking = McpServerSettings(name="restaurant", command=sys.executable, args=["-m", "tests.mcp_servers.asking"],
                               cwd=str(ROOT))
    s = settings.updated({"mcp.servers": [asking.model_dump()], "tools.max_offered": 0})
    server.chunk_delay_s = 0.01
    server.script([
        *[line(content=w) for w in words("I'll book it — the restaurant needs a few details from you.")],
        line(tool_calls=[{"function": {"name": "restaurant__book_table", "arguments": {"restaurant": "Luigi's"}}}]),
        done(),
    ])
    w = new_window(app, s)
    wait_until(app, lambda: w.assembly.current_mcp() is not None, 60)
    wait_until(app, lambda: w.assembly.current_mcp().states()[0].state == "ready", 60)
    w.send("Book a table at Luigi's for Saturday.")
    wait_until(app, lambda: bool(w.chat.live and w.chat.live.approvals), 60)
    w.chat.live.approvals[0].allow.click()
    wait_until(app, lambda: bool(w.chat.live and w.chat.live.questions), 60)
    card = w.chat.live.questions[0]
    inputs = {i.field.name: i for i in card.inputs}
    inputs["name"].widget.setText("Ada Lovelace")
    inputs["party"].widget.setText("14")
    card.submit.click()  # the party is too big: the form says so and waits
    spin(app, 0.5)
    w.chat.verticalScrollBar().setValue(w.chat.verticalScrollBar().maximum())
    save(app, w, out / name)
    w.stop()
    wait_until(app, lambda: not w.busy)
    w.close()


SHOTS = {
    "empty": shot_empty,
    "main": shot_main,
    "tool-call": shot_tool_call,
    "error": shot_error,
    "settings": shot_settings,
    "settings-tools": shot_settings_tools,
    "settings-appearance": shot_appearance,
    "approval-card": shot_approval,
    "settings-tools-rules": shot_rules,
    "quick-ask": shot_quick_ask,
    "branches": shot_branches,
    "import": shot_import,
    "attachments": shot_attachments,
    "mcp-form": shot_mcp_form,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--only", default="",
                        help="comma-separated: " + ",".join([*SHOTS, "dark"]))
    parser.add_argument("--language", default="en", choices=["en", "zh_CN"],
                        help="the window's language; a translated shot is saved as NAME-LANGUAGE.png")
    args = parser.parse_args(argv)
    target = Path(args.out)
    target.mkdir(parents=True, exist_ok=True)
    out = target if args.language == "en" else Path(tempfile.mkdtemp(prefix="da-shots-out-"))
    only = {s for s in args.only.split(",") if s}

    app = QApplication([sys.argv[0]])
    app.setApplicationName("desktop-agent")
    app.setApplicationDisplayName("Desktop Agent")
    os.environ["DESKTOP_AGENT_THEME"] = "light"
    theme.apply(app)
    i18n.install(args.language, app)
    if args.language == "zh_CN":
        globals().update(CHINESE)
    server = OllamaServer().start()
    settings = Settings(ollama_host=server.url, ollama_model="llama3.2")
    try:
        for name, fn in SHOTS.items():
            if not only or name in only:
                fresh_home()
                fn(app, server, settings, out)
        if not only or "dark" in only:
            app.setPalette(theme.dark_palette())
            icons.clear_cache()
            fresh_home()
            shot_main(app, server, settings, out, "dark.png")
        if "mcp-form-dark" in only:  # looked at, not kept in docs/
            app.setPalette(theme.dark_palette())
            icons.clear_cache()
            fresh_home()
            shot_mcp_form(app, server, settings, out, "mcp-form-dark.png")
    finally:
        server.stop()
    if out != target:
        for shot in sorted(out.glob("*.png")):
            shot.replace(target / f"{shot.stem}-{args.language}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
