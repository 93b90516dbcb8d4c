"""A running tool's progress reports reach the turn's events in order (merged when they pile up), and a result's
attachments are for the user only: in ``ToolCallFinished`` and its JSON, not in what the model gets."""

from __future__ import annotations

import json
import threading
from typing import ClassVar

from desktop_agent.core.events import ToolCallFinished, event_to_dict
from desktop_agent.core.streams import run_reporting
from desktop_agent.core.tools.dispatch import dispatch_call
from desktop_agent.core.tools.results import Attachment, ToolReply


def test_reports_arrive_in_order_and_the_result_last():
    gate, later = threading.Event(), threading.Event()

    def work(report):
        report(1)
        gate.wait(5)
        report(2)
        report(3)  # these two may be merged: the newest is kept
        later.wait(5)
        return "done"

    gen = run_reporting(work)
    assert next(gen) == 1
    gate.set()
    seen = [next(gen)]
    later.set()
    try:
        while True:
            seen.append(next(gen))
    except StopIteration as stop:
        assert stop.value == "done"
    assert seen in ([2, 3], [3])  # (a report that comes with the end is dropped: the call is over)


def test_an_error_of_the_work_is_raised():
    def work(_report):
        raise ValueError("broken")

    gen = run_reporting(work)
    try:
        next(gen)
    except ValueError as exc:
        assert str(exc) == "broken"
    else:
        raise AssertionError("no error")


class _ImageTool:
    name = "picture"
    parameters: ClassVar[dict] = {"type": "object", "properties": {}}
    timeout_s = None
    requires_approval = False
    read_only = True
    destructive = False
    source = "test"

    def prepare(self, arguments):
        return dict(arguments)

    def invoke(self, kwargs, cancel=None, progress=None):
        return ToolReply("[image: image/png]", (Attachment("image", "image/png", "iVBORw0KGgo="),))


def test_attachments_go_to_the_user_not_the_model():
    result = dispatch_call({"picture": _ImageTool()}, "picture", {})  # type: ignore[dict-item]
    assert result.status == "ok" and result.content == "[image: image/png]"
    assert result.attachments == (Attachment("image", "image/png", "iVBORw0KGgo="),)
    event = ToolCallFinished("c1", "picture", True, result.full, None, 1.0, attachments=result.attachments)
    data = json.loads(json.dumps(event_to_dict(event)))
    assert data["attachments"] == [{"kind": "image", "mime_type": "image/png", "data": "iVBORw0KGgo="}]
