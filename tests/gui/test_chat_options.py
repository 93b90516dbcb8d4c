"""The chat's quick options strip in the real window, against the local Ollama protocol server: what the strip
sets is what the next request carries, per chat, saved with the chat; a new chat starts from Settings."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_agent.core.settings import Settings
from tests.helpers.gui import wait_idle


def _last_chat(server) -> dict:
    return server.chat_requests[-1]


def _offered(body: dict) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]


def _send(qtbot, w, text: str = "hello there") -> None:
    w.send(text)
    wait_idle(qtbot, w)


def _list_tools(qtbot, w) -> None:
    """Open the tools menu (non-blocking) and wait for its list, loaded in the background."""
    strip = w.chat_options
    with qtbot.waitSignal(strip.tools_listed, timeout=10_000):
        strip.tools_menu.popup(strip.tools_menu_button.mapToGlobal(strip.tools_menu_button.rect().bottomLeft()))


def _store(tmp_path):
    from desktop_agent.core.store import ConversationStore

    return ConversationStore(tmp_path / "chats.sqlite3")


def test_turning_tools_off_sends_no_tools_and_the_empty_chat_says_so(make_window, qtbot, ollama_server,
                                                                    ollama_settings):
    w = make_window(ollama_settings.updated({"tools.only_relevant": False}))  # every tool, every message
    strip = w.chat_options
    assert strip.tools_button.isChecked() and "tools" in w.chat.empty_state.hint.text()
    strip.tools_button.click()
    assert w.conversation.options == {"tools.enabled": False}
    assert "Tools are off" in w.chat.empty_state.hint.text()
    _send(qtbot, w)
    body = _last_chat(ollama_server)
    assert "tools" not in body and "call tools" not in body["messages"][0]["content"]
    strip.tools_button.click()  # back to the default: no override left
    assert w.conversation.options == {}
    _send(qtbot, w, "and again")
    assert "calculator" in _offered(_last_chat(ollama_server))


def test_unticking_a_tool_leaves_it_out_and_the_menu_stays_open(make_window, qtbot, ollama_server,
                                                               ollama_settings):
    w = make_window(ollama_settings)
    strip = w.chat_options
    _list_tools(qtbot, w)
    menu = strip.tools_menu
    assert list(strip.tool_actions) == ["calculator", "today", "day_of_week", "list_directory", "read_text_file",
                                        "search_files", "write_text_file", "say_hello", "run_shell_command",
                                        "get_current_weather", "fetch_url"]
    assert all(a.isChecked() for a in strip.tool_actions.values())
    action = strip.tool_actions["calculator"]
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
    assert not action.isChecked() and menu.isVisible()  # several tools can be unticked in one go
    strip.tool_actions["today"].trigger()
    assert w.conversation.options == {"tools.disabled": ["calculator", "today"]}
    menu.hide()
    _send(qtbot, w, "calculate 2+2")  # would call the calculator if it were offered
    offered = _offered(_last_chat(ollama_server))
    assert offered == ["day_of_week", "list_directory", "read_text_file", "search_files", "write_text_file",
                       "say_hello", "run_shell_command", "get_current_weather", "fetch_url"]
    assert w.conversation.messages[-1].content.startswith("You said")
    assert "2 left out" in strip.tools_menu_button.toolTip()


def test_a_chosen_set_of_tools_is_saved_with_the_chat_and_restored_after_a_restart(
        make_window, qtbot, ollama_server, ollama_settings, tmp_path):
    store = _store(tmp_path)
    w = make_window(ollama_settings, store=store)
    _list_tools(qtbot, w)
    w.chat_options.tools_menu.hide()
    for name in ("run_shell_command", "write_text_file"):
        w.chat_options.tool_actions[name].trigger()
    _send(qtbot, w)
    chat_id = w.conversation.id
    assert sorted(store.load(chat_id).options["tools.disabled"]) == ["run_shell_command", "write_text_file"]
    w.close()
    store.close()

    store2 = _store(tmp_path)
    w2 = make_window(ollama_settings, store=store2)
    w2.open_conversation(chat_id)
    _list_tools(qtbot, w2)
    w2.chat_options.tools_menu.hide()
    actions = w2.chat_options.tool_actions
    assert not actions["run_shell_command"].isChecked() and not actions["write_text_file"].isChecked()
    assert actions["calculator"].isChecked()
    _send(qtbot, w2, "again")
    offered = _offered(_last_chat(ollama_server))
    assert "run_shell_command" not in offered and "write_text_file" not in offered and "calculator" in offered
    w2.close()
    store2.close()


def test_temperature_think_and_json_go_into_the_request(make_window, qtbot, ollama_server, ollama_settings):
    # (a model that can think, as /api/show says: issue 13 sends think only to those)
    ollama_server.model_facts["llama3.2"] = (131072, ["completion", "tools", "thinking"])
    w = make_window(ollama_settings)
    strip = w.chat_options
    _send(qtbot, w)
    body = _last_chat(ollama_server)
    assert body["options"]["temperature"] == 0.0 and "think" not in body and "format" not in body
    for _ in range(7):
        strip.warmer.click()
    assert strip.temperature.value() == 0.7 and strip.temperature.text() == "0.7"
    strip.think_actions[True].trigger()
    assert strip.think.accessibleName() == "Think: On"
    strip.json_button.click()
    assert w.conversation.options == {"generation.temperature": 0.7, "generation.think": True,
                                      "generation.format": "json"}
    _send(qtbot, w, "once more")
    body = _last_chat(ollama_server)
    assert body["options"]["temperature"] == 0.7 and body["think"] is True and body["format"] == "json"
    strip.think_actions[False].trigger()
    _send(qtbot, w, "without thinking")
    assert _last_chat(ollama_server)["think"] is False


def test_options_survive_reopening_and_a_restart_and_a_new_chat_starts_from_settings(
        make_window, qtbot, ollama_server, ollama_settings, tmp_path):
    defaults = ollama_settings.updated({"generation.temperature": 0.2, "tools.only_relevant": False})
    store = _store(tmp_path)
    w = make_window(defaults, store=store)
    strip = w.chat_options
    assert strip.temperature.value() == 0.2  # the default from Settings
    strip.temperature.setValue(0.7)  # before the first message: saved with it
    strip.json_button.click()
    _send(qtbot, w)
    chat_id = w.conversation.id
    assert store.load(chat_id).options == {"generation.temperature": 0.7, "generation.format": "json"}
    strip.tools_button.click()  # a saved chat: saved at once
    assert store.load(chat_id).options["tools.enabled"] is False

    w.new_chat()
    assert w.conversation.options == {}
    assert strip.temperature.value() == 0.2 and not strip.json_button.isChecked() and strip.tools_button.isChecked()
    _send(qtbot, w, "a new chat")
    body = _last_chat(ollama_server)
    assert body["options"]["temperature"] == 0.2 and "format" not in body and body.get("tools")

    w.open_conversation(chat_id)
    assert strip.temperature.value() == 0.7 and strip.json_button.isChecked() and not strip.tools_button.isChecked()
    assert "Tools are off" in w.chat.empty_state.hint.text()
    _send(qtbot, w, "back in the first chat")
    body = _last_chat(ollama_server)
    assert body["options"]["temperature"] == 0.7 and body["format"] == "json" and "tools" not in body
    strip.temperature.setValue(0.2)  # the default again: the override goes
    assert store.load(chat_id).options == {"tools.enabled": False, "generation.format": "json"}
    w.close()
    store.close()

    store2 = _store(tmp_path)  # a restart: a new window on the same history
    w2 = make_window(defaults, store=store2)  # it reopens the chat last on screen, with the chat's own options
    assert w2.conversation.id == chat_id
    strip2 = w2.chat_options
    assert strip2.options == {"tools.enabled": False, "generation.format": "json"}
    assert strip2.json_button.isChecked() and not strip2.tools_button.isChecked()
    _send(qtbot, w2, "after the restart")
    body = _last_chat(ollama_server)
    assert body["format"] == "json" and "tools" not in body and body["options"]["temperature"] == 0.2
    w2.new_chat()  # a new chat after the restart starts from Settings
    assert w2.chat_options.options == {} and w2.chat_options.temperature.value() == 0.2
    w2.close()
    store2.close()


def test_a_control_shows_the_settings_default_until_the_chat_overrides_it(make_window, qtbot):
    w = make_window(Settings(temperature=0.5, think=True, tools_enabled=False))
    strip = w.chat_options
    assert strip.temperature.value() == 0.5 and strip.think.accessibleName() == "Think: On"
    assert not strip.tools_button.isChecked() and "Tools are off" in w.chat.empty_state.hint.text()
    assert "default from Settings" in strip.temperature.toolTip() and not strip.temperature.property("override")
    strip.think_actions[None].trigger()  # "the model's default" differs from Settings here: an override
    assert w.conversation.options == {"generation.think": None}
    assert strip.think.property("override") and "This chat only" in strip.think.toolTip()
    w.apply_settings(Settings(temperature=0.9, think=True))  # new defaults: the chat keeps its override
    assert strip.temperature.value() == 0.9 and strip.think.accessibleName() == "Think: Model default"
    assert strip.tools_button.isChecked() and "tools" in w.chat.empty_state.hint.text()


def test_the_strip_is_reachable_with_tab_and_named(make_window, qtbot):
    w = make_window(Settings())
    strip = w.chat_options
    controls = [strip.tools_button, strip.tools_menu_button, strip.temperature, strip.think, strip.json_button]
    for c in controls:
        assert c.accessibleName(), c
        assert c.focusPolicy() & Qt.FocusPolicy.TabFocus, c
    w.activateWindow()
    w.input.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.input, timeout=2000)
    reached = []
    for _ in range(30):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        focus = QApplication.focusWidget()
        reached.append(focus.parent() if focus is not None and focus.parent() is strip.temperature else focus)
    assert all(c in reached for c in controls)
    order = [reached.index(c) for c in controls]
    assert order == sorted(order)  # left to right
    assert strip.height() < 2 * strip.tools_button.sizeHint().height()  # one line


def test_the_strip_folds_in_a_narrow_window_and_looks_right_in_both_palettes(make_window, qtbot, tmp_path):
    from desktop_agent.ui import theme

    w = make_window(Settings(), size=(1100, 700))
    strip = w.chat_options
    w.tool_dock.hide()
    if w.history_dock is not None:
        w.history_dock.hide()
    qtbot.waitUntil(lambda: all(not label.isHidden() for label in strip.labels), timeout=2000)
    w.resize(420, 600)
    qtbot.waitUntil(lambda: strip.labels[0].isHidden(), timeout=2000)
    assert strip.think.text().startswith("Think:") or strip.think.isHidden()
    assert strip.layout().sizeHint().width() <= strip.width()  # nothing cut off
    w.resize(1100, 700)
    qtbot.waitUntil(lambda: not strip.labels[0].isHidden() and not strip.json_button.isHidden(), timeout=2000)
    app = QApplication.instance()
    original = app.palette()
    try:
        for palette in (theme.dark_palette(), theme.light_palette()):
            app.setPalette(palette)
            qtbot.wait(50)
            strip.restyle()
            image = strip.grab().toImage()
            geo = strip.tools_button.geometry()
            inside = image.pixelColor(geo.left() + 3, geo.center().y())
            outside = image.pixelColor(geo.right() + 2, geo.center().y())
            assert inside != outside  # the checked Tools button stands out from the background
            assert theme.current().dark == (palette.color(palette.ColorRole.Base).lightness() < 128)
    finally:
        app.setPalette(original)
        strip.restyle()


def test_folded_options_stay_reachable_from_the_more_menu(make_window, qtbot):
    """At the window's minimum size (the tool activity still beside the chat) JSON and Think folded away and
    could not be changed at all; now they fold into the ⋯ menu, which changes the same chat options."""
    w = make_window(Settings(), size=(1100, 700))
    strip = w.chat_options
    assert strip.more_button.isHidden()
    w.resize(w.minimumSize().expandedTo(w.minimumSizeHint()))
    w.tool_dock.show()  # the user keeps the tool activity open beside the chat
    qtbot.waitUntil(lambda: strip.json_button.isHidden(), timeout=3000)
    assert not strip.more_button.isHidden()
    assert strip.layout().sizeHint().width() <= max(strip.width(), strip.minimumSizeHint().width())
    assert strip.more_json.isVisible()
    strip.more_json.trigger()
    assert strip.json_button.isChecked()
    assert strip.effective().generation.format == "json"
    if strip.think.isHidden():
        assert strip.more_think.isVisible()
        strip.think_actions[True].trigger()
        assert strip.effective().generation.think is True
    strip.more_json.trigger()
    assert strip.effective().generation.format is None


def test_the_tools_menu_that_grows_while_open_stays_on_the_screen(make_window, qtbot, ollama_settings):
    # found by a new-user trial: the menu opened with "Listing the tools…" below the button near the bottom of
    # the screen, then grew to eleven tools downwards, off the screen
    w = make_window(ollama_settings)
    screen = w.screen().availableGeometry()
    w.resize(760, 520)
    w.move(screen.left(), screen.bottom() - w.frameGeometry().height())
    strip = w.chat_options
    _list_tools(qtbot, w)
    menu = strip.tools_menu
    qtbot.waitUntil(lambda: len(strip.tool_actions) > 5)
    assert menu.isVisible()
    assert screen.contains(menu.geometry()), (menu.geometry(), screen)
    menu.hide()

