"""``desktop-agent tools --learned`` lists what the app learned about each server and model, and
``--forget-learned [MODEL]`` forgets it (the file the window and ``chat`` read)."""

from __future__ import annotations

import json

from tests.helpers.cli import run_cli

SMOLLM = {"backend": "openai", "url": "http://127.0.0.1:8080/v1", "model": "smollm2",
          "failures": {"auto_tools": 2}}
QWEN = {"backend": "ollama", "url": "http://127.0.0.1:11434", "model": "qwen3", "failures": {"stream_with_tools": 1}}


def write_learned(home, *rows) -> None:
    path = home / "cache" / "capabilities.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 2, "learned": list(rows)}), encoding="utf-8")


def learned_models(home) -> list[str]:
    data = json.loads((home / "cache" / "capabilities.json").read_text(encoding="utf-8"))
    return [row["model"] for row in data["learned"]]


def test_learned_lists_each_model_with_what_was_learned_and_how_to_forget(tmp_path):
    home = tmp_path / "home"
    assert run_cli(home, "tools", "--learned").stdout == "nothing learned about any server or model\n"
    write_learned(home, SMOLLM, QWEN)
    proc = run_cli(home, "tools", "--learned")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:4] == [
        "qwen3  [ollama http://127.0.0.1:11434]",
        "  Its streamed answer came back empty when offered tools once (streaming with tools goes off after 2 in a "
        "row)",
        "smollm2  [openai http://127.0.0.1:8080/v1]",
        "  Tools off: it answered nothing when offered them (2 times in a row)",
    ]
    assert "desktop-agent tools --forget-learned" in lines[4]


def test_forget_learned_one_model_then_all(tmp_path):
    home = tmp_path / "home"
    write_learned(home, SMOLLM, QWEN)
    proc = run_cli(home, "tools", "--forget-learned", "smollm2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "forgot what was learned about smollm2 (1 server): its next chat offers tools again\n"
    assert learned_models(home) == ["qwen3"]
    assert run_cli(home, "tools", "--forget-learned", "smollm2").stdout == "nothing was learned about smollm2\n"
    proc = run_cli(home, "tools", "--forget-learned")
    assert proc.stdout.startswith("forgot everything learned (1 server and model)")
    assert learned_models(home) == []


def test_learned_and_forget_are_one_or_the_other(tmp_path):
    proc = run_cli(tmp_path / "home", "tools", "--learned", "--forget-learned")
    assert proc.returncode == 2 and "not allowed with argument --learned" in proc.stderr
