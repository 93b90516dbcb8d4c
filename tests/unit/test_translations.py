"""The translations (issue 25): every text the sources pass to translate() / self.tr() / QT_TRANSLATE_NOOP is in
desktop_agent_zh_CN.ts with a finished translation that keeps the source's {placeholders} and %n; the committed
.qm is the one pyside6-lrelease builds from the .ts (a stale .qm fails); the language setting resolves the way the
app starts with it; marked core texts stay English strings and translate where the window shows them."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "desktop_agent"
TS = PACKAGE / "translations" / "desktop_agent_zh_CN.ts"
QM = PACKAGE / "translations" / "desktop_agent_zh_CN.qm"
MARKERS = {"translate", "QT_TRANSLATE_NOOP", "tr"}


def _tool(name: str) -> str:
    found = Path(sys.executable).parent / name
    return str(found) if found.exists() else (shutil.which(name) or name)


def _ts_messages() -> dict[tuple[str, str], ET.Element]:
    root = ET.parse(TS).getroot()
    return {(c.findtext("name") or "", m.findtext("source") or ""): m
            for c in root.iter("context") for m in c.iter("message")}


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _marked_texts() -> list[tuple[str, str, str]]:
    """(file:line, context, text) of every translate("Ctx", "text") / QT_TRANSLATE_NOOP call in ui/ and core/."""
    found = []
    for path in sorted([*(PACKAGE / "ui").rglob("*.py"), *(PACKAGE / "core").rglob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name not in MARKERS or name == "tr" or len(node.args) < 2:
                continue
            context, text = _literal(node.args[0]), _literal(node.args[1])
            if context is not None and text is not None:
                found.append((f"{path.relative_to(ROOT)}:{node.lineno}", context, text))
    return found


def test_every_marked_text_has_a_finished_translation_that_keeps_its_values():
    messages = _ts_messages()
    marked = _marked_texts()
    assert len(marked) > 700  # the scan found the window's texts
    problems = []
    for where, context, text in marked:
        message = messages.get((context, text))
        if message is None:
            problems.append(f"{where}: ({context}) {text!r} is not in the .ts — run scripts/translations.sh")
            continue
        translation = message.find("translation")
        assert translation is not None
        forms = [f.text or "" for f in translation.iter("numerusform")] or [translation.text or ""]
        if translation.get("type") in ("unfinished", "vanished", "obsolete") or not all(forms):
            problems.append(f"{where}: ({context}) {text!r} has no finished zh_CN translation")
            continue
        for form in forms:
            if sorted(re.findall(r"\{[^{}]*\}", form)) != sorted(re.findall(r"\{[^{}]*\}", text)):
                problems.append(f"{where}: ({context}) {text!r}: the translation {form!r} changes the {{values}}")
            if ("%n" in text or "%Ln" in text) and "%n" not in form and "%Ln" not in form:
                problems.append(f"{where}: ({context}) {text!r}: the translation {form!r} lost %n")
    assert not problems, "\n".join(problems)


def test_no_text_is_marked_with_an_fstring_or_a_variable_context():
    """lupdate reads literals only: translate(f"…") would never match a translation."""
    bad = []
    for path in sorted([*(PACKAGE / "ui").rglob("*.py"), *(PACKAGE / "core").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            marker = isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("translate", "QT_TRANSLATE_NOOP")
            if marker and any(isinstance(arg, ast.JoinedStr) for arg in node.args[:2]):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, "f-strings passed to translate: " + ", ".join(bad)


def test_the_ts_has_no_unfinished_entry():
    text = TS.read_text(encoding="utf-8")
    assert 'type="unfinished"' not in text and 'type="vanished"' not in text and 'type="obsolete"' not in text


def test_the_committed_qm_is_built_from_the_committed_ts(tmp_path):
    """What a plain `pip install .` ships: the .qm inside the package, current with the .ts."""
    built = tmp_path / "zh_CN.qm"
    subprocess.run([_tool("pyside6-lrelease"), "-nounfinished", "-removeidentical", str(TS), "-qm", str(built)],
                   check=True, capture_output=True, timeout=60)
    assert built.read_bytes() == QM.read_bytes(), "the .qm is stale: run scripts/translations.sh and commit it"


def test_the_refresh_command_changes_nothing_when_the_sources_did_not(tmp_path):
    """scripts/translations.sh is idempotent: run on a copy of the repository's translated sources, the .ts and
    .qm stay byte for byte what is committed (so a stale .ts — a new text not extracted — fails too)."""
    copy = tmp_path / "repo"
    for part in ("desktop_agent/ui", "desktop_agent/core", "desktop_agent/translations", "scripts"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYSIDE6_BIN": str(Path(_tool("pyside6-lupdate")).parent)}
    subprocess.run(["bash", str(copy / "scripts" / "translations.sh")], check=True, capture_output=True, env=env,
                   timeout=120)
    assert (copy / "desktop_agent/translations/desktop_agent_zh_CN.ts").read_bytes() == TS.read_bytes()
    assert (copy / "desktop_agent/translations/desktop_agent_zh_CN.qm").read_bytes() == QM.read_bytes()


@pytest.mark.parametrize(("setting", "system", "expected"), [
    ("system", "zh_CN", "zh_CN"), ("system", "zh_SG", "zh_CN"), ("system", "zh_TW", "en"),
    ("system", "de_DE", "en"), ("system", "en_US", "en"), ("en", "zh_CN", "en"), ("zh_CN", "en_US", "zh_CN"),
])
def test_the_language_setting_resolves_against_the_system_locale(setting, system, expected):
    from PySide6.QtCore import QLocale

    from desktop_agent.ui.i18n import resolve

    assert resolve(setting, QLocale(system)) == expected


def test_following_the_system_reads_lang_like_the_app_at_start(tmp_path):
    """A fresh process with LANG=zh_CN.UTF-8 and the default setting speaks Chinese; with LANG=C English."""
    code = ("from PySide6.QtCore import QCoreApplication; app = QCoreApplication([]); "
            "from desktop_agent.ui import i18n; print(i18n.install('system', app)); "
            "print(i18n.translate('Compose', 'Send'))")
    for lang, expected in (("zh_CN.UTF-8", "zh_CN\n发送"), ("C.UTF-8", "en\nSend")):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
        env.update(LANG=lang, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        assert out.stdout.strip() == expected, out.stderr


def test_a_marked_core_text_is_english_for_the_terminal_and_translated_for_the_window(qapp):
    from desktop_agent.core import errors
    from desktop_agent.ui import i18n
    from desktop_agent.ui.errors import error_text

    error = errors.ModelNotFound("qwen3", "ollama", ["llama3.2"])
    english = str(error)
    assert english.startswith("The model 'qwen3' is not installed in Ollama. Pull it with `ollama pull qwen3`")
    assert error_text(error) == english  # no translator: the English sentence, as before
    assert i18n.install("zh_CN", qapp) == "zh_CN"
    try:
        shown = error_text(error)
        assert "模型“qwen3”未安装在 Ollama 中" in shown and "ollama pull qwen3" in shown and "llama3.2" in shown
        assert str(error) == english and error.for_terminal().startswith("The model 'qwen3'")  # the terminal: English
    finally:
        i18n.uninstall(qapp)
