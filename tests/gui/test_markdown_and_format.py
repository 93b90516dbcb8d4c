"""ui/markdown.py (markdown-it-py + Pygments → Qt rich text) and the sidebar's formatting helpers."""

from __future__ import annotations

from desktop_agent.ui import markdown
from desktop_agent.ui.tool_sidebar import format_duration, pretty_json, short_arguments


def test_code_blocks_get_copy_links_and_highlighting():
    out = markdown.render("Text\n\n```python\ndef f():\n    return 1\n```\n\n```\nplain <b>\n```")
    assert out.codes == ["def f():\n    return 1", "plain <b>"]
    assert 'href="copy:0"' in out.html and 'href="copy:1"' in out.html
    assert "style=\"color:" in out.html or "style=\"color: " in out.html  # Pygments inline colours
    assert "plain &lt;b&gt;" in out.html  # unknown language: escaped, not interpreted
    assert "white-space:pre-wrap" in out.html


def test_raw_html_from_the_model_is_escaped_and_images_become_links():
    out = markdown.render('<script>alert(1)</script>\n\n![chart](http://example.com/c.png)')
    assert "<script>" not in out.html and "&lt;script&gt;" in out.html
    assert "<img" not in out.html and 'href="http://example.com/c.png"' in out.html


def test_unclosed_fence_while_streaming_renders_as_code():
    out = markdown.render("Here:\n\n```python\nx = 1")
    assert out.codes == ["x = 1"]


def test_tables_and_copied_marker():
    out = markdown.render("| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nx\n```", copied=0)
    assert "<table border=\"1\"" in out.html and "<th>a</th>" in out.html
    assert "Copied ✓" in out.html


def test_format_duration():
    assert format_duration(None) == ""
    assert format_duration(4.2) == "4 ms"
    assert format_duration(420) == "420 ms"
    assert format_duration(1234) == "1.2 s"
    assert format_duration(12_400) == "12 s"
    assert format_duration(125_000) == "2 m 05 s"


def test_short_arguments():
    assert short_arguments({}) == ""
    assert short_arguments({"location": "Paris", "unit": "C"}) == "location=Paris, unit=C"
    assert short_arguments({"q": "two words"}) == 'q="two words"'
    assert short_arguments({"city": "東京"}) == "city=東京"
    long = short_arguments({"text": "x" * 200}, limit=30)
    assert len(long) == 30 and long.endswith("…")


def test_pretty_json():
    assert pretty_json('{"a": [1, 2]}') == '{\n  "a": [\n    1,\n    2\n  ]\n}'
    assert pretty_json("not json") == "not json"
    assert pretty_json('"just text"') == "just text"
    assert pretty_json({"ville": "Zürich"}) == '{\n  "ville": "Zürich"\n}'
