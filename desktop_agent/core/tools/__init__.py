"""Tools the model can call: the ``@tool`` decorator, how a function becomes a tool, and running tool calls.

What a tool author writes::

    from typing import Annotated
    from pydantic import Field
    from desktop_agent import tool

    @tool
    def get_current_weather(
        location: Annotated[str, Field(description="City name, e.g. 'Paris'")],
        unit: Literal["celsius", "fahrenheit"] = "celsius",
    ) -> dict:
        \"\"\"Get the current weather in a given location.

        Args:
            unit: Temperature unit of the answer.
        \"\"\"

Everything the model sees is derived from the function (no hand-written schema, no type→schema table):

- **name**: the function name (or ``@tool(name=...)``); must match ``^[A-Za-z0-9_-]{1,64}$`` (the OpenAI
  rule, which Ollama accepts too).
- **description**: the docstring's first paragraph (or ``@tool(description=...)``).
- **parameters**: a JSON schema built by pydantic (``create_model``) from the signature and type hints.
  A parameter's description comes from ``Annotated[..., Field(description=...)]``, else from the
  docstring's Google-style ``Args:`` section (``:param name:`` lines work too). The schema is cleaned for
  picky servers: ``$defs``/``$ref`` are inlined (servers that do not resolve them show the model untyped
  parameters), ``Optional[X] = None`` becomes the type of ``X`` and is not required (strict servers refuse
  a property without a top-level ``type``), ``title`` noise is dropped, ``Literal``/``Enum`` become
  ``enum``, and a tool without parameters gets ``{"type": "object", "properties": {}}``.

Calling conventions for tool authors:

- Return a ``str`` (sent as is) or anything JSON-serialisable (dict, list, number, pydantic model,
  dataclass…; sent as JSON text with ``ensure_ascii=False`` so non-ASCII text stays readable, not as
  ``\\uXXXX`` escapes that small models misread).
- Raise an exception to report a failure: the model gets ``Error: ValueError: <message>`` (no traceback).
  Raise :class:`ToolError` to send your message alone: ``Error: <message>``.
- A tool runs with a timeout (``@tool(timeout_s=...)``, else the registry's default of 30 s). The app runs
  it in a separate tool-host process (:mod:`.host`; setting ``tools.isolated``), so a tool that exits,
  crashes or spins cannot take the app down: on timeout or cancel its process is killed (with what it
  started), a crash becomes an error result, and what it prints is kept with its result, not written to
  the terminal. To stop cleanly first, declare a parameter ``cancel: threading.Event``: it is not shown to
  the model, and it is set when the user cancels the call, presses Stop or the timeout expires — check
  ``cancel.is_set()`` in loops, or use ``cancel.wait(seconds)`` instead of ``time.sleep``; the process is
  killed if the tool has not returned 0.3 s later. A registry without a host (and a tool the host cannot
  import again: one defined inside a function) runs it in a daemon thread of the app, abandoned on timeout;
  there ``@tool(inline=True)`` — a quick function that never blocks — is called in the agent's own thread
  instead (no hand-off; a call that returned after Stop or its timeout is reported as such, and a tool whose
  call took longer than 50 ms runs on a worker from then on).
- ``@tool(requires_approval=True)`` or ``@tool(destructive=True)``: the permission engine asks the user before
  it runs (the window shows a card, the terminal a prompt); with no one to ask the call is denied.
  ``@tool(read_only=True)`` declares that it changes nothing. See :mod:`.permissions`.

Wire format: the ``tools=`` payload is the OpenAI Chat Completions shape
``{"type": "function", "function": {"name", "description", "parameters"}}`` (OpenAI API reference,
"Function calling"), which Ollama's ``/api/chat`` accepts unchanged (Ollama docs/api.md, "tools").

The modules, one job each (import from them directly; this ``__init__`` stays empty so that
``from desktop_agent import tool`` imports only :mod:`.decorator`, without pydantic):

- :mod:`.decorator` — ``@tool``, :class:`ToolError`, the options it records, :func:`is_tool`
- :mod:`.docstrings` — a docstring's description and its ``Args:`` / ``:param:`` descriptions
- :mod:`.schema` — a signature as a pydantic argument model, and its JSON schema cleaned for servers
- :mod:`.definition` — :class:`Tool`: one function with its name, description, schema; prepare and invoke
- :mod:`.results` — :class:`ToolResult`, a return value or a failure as text, the output cap
- :mod:`.dispatch` — one call: arguments decoded and validated, the permission check, run with timeout and
  cancel, every failure turned into a result the model can read
- :mod:`.permissions` — allow / ask / deny: rules by tool and subject (folder, command word, host, exact
  arguments), defaults, the user's answers, decisions
- :mod:`.preview` — what a call would do (command line, diff, arguments), shown before it is allowed
- :mod:`.registry` — :class:`ToolRegistry`: registration, names, lookup; its ``dispatch`` runs a call
- :mod:`.loader` — shipped tools, the user's folder, extra folders and entry points into a registry
- :mod:`.origin` — where a tool's function lives: the address the tool host finds it by
- :mod:`.host` — the tool host: child processes that run calls apart from the app (:mod:`.host_main` is the
  child, :mod:`.host_run` finds a tool again there and runs one call)
"""
