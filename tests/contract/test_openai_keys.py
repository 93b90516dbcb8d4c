"""OpenAIBackend's key pool, retries and HTTP errors, through the official ``openai`` client against
the local Chat Completions server (tests/servers/openai.py): Retry-After (case 20), missing or
rejected keys (case 21), several keys round-robin, typed errors, and no key in any error or log.
"""

from __future__ import annotations

import email.utils
import logging

import pytest

from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.errors import (
    AllKeysFailed,
    AuthenticationFailed,
    BackendError,
    BackendUnreachable,
    ModelNotFound,
    NoApiKey,
    RateLimited,
    ToolsNotSupported,
)
from tests.contract.test_openai_backend import (  # noqa: F401 — the shared client fixture too
    TODAY,
    Sleeps,
    _shared_http_client,
    answer,
    collect,
    make_backend,
    user,
)
from tests.servers.openai import HttpError, OpenAIServer

GOOD = "sk-good-key-0123456789abcdefGOOD"
BAD = "sk-wrong-0000"
OTHER = "sk-other-bad-key-9876543210zzz"

CASE20_429 = HttpError(
    429,
    {"error": {"message": "Rate limit reached for model on tokens per minute. Please try again in 2s.",
               "type": "tokens", "code": "rate_limit_exceeded"}},
    {"retry-after": "2"},
)
CASE20_ANSWER = answer("Here is your answer.")
CASE20_LONG = HttpError(
    429,
    {"error": {"message": "Daily request limit reached.", "type": "requests", "code": "rate_limit_exceeded"}},
    {"retry-after": "3600"},
)


def keys_used(server) -> list[str | None]:
    return [r.key for r in server.requests]


# ------------------------------------------------------------------------------ case 20
def test_case20_retry_after_2s_is_honoured_with_a_notice_first(openai_server):
    """shared case 20-openai-429-retry-after.json: the second attempt waits the server's 2 s (the
    injected sleep records exactly 2.0), a 'rate limited — retrying in 2 s' notice comes before it,
    and 'Here is your answer.' is shown."""
    openai_server.script(CASE20_429, CASE20_ANSWER)
    backend = make_backend(openai_server)
    chunks = list(backend.stream_chat(user("question")))
    assert chunks[0].notice == "rate limited — retrying in 2 s"
    assert "".join(c.text for c in chunks) == "Here is your answer."
    assert backend.pool._sleep == [2.0]
    assert len(openai_server.requests) == 2


def test_case20_short_real_retry_after_is_really_waited(openai_server):
    """shared case 20-openai-429-retry-after.json with the real clock: Retry-After 0.2 s → the next
    request reaches the server no sooner than 0.2 s later."""
    openai_server.script(HttpError(429, None, {"Retry-After": "0.2"}), CASE20_ANSWER)
    import time

    backend = make_backend(openai_server, sleep=time.sleep)
    assert collect(backend.stream_chat(user("q"))).text == "Here is your answer."
    first, second = openai_server.requests
    assert second.time - first.time >= 0.2


def test_case20_retry_after_as_http_date_on_a_fake_clock(openai_server):
    """shared case 20-openai-429-retry-after.json: Retry-After may be an HTTP date."""
    now = 1_900_000_000.0
    date = email.utils.formatdate(now + 5, usegmt=True)
    openai_server.script(HttpError(429, None, {"Retry-After": date}), CASE20_ANSWER)
    backend = make_backend(openai_server, clock=lambda: now)
    result = collect(backend.stream_chat(user("q")))
    assert backend.pool._sleep == [5.0] and result.notices == ["rate limited — retrying in 5 s"]


def test_case20_retry_after_3600_stops_at_once_with_the_wait(openai_server):
    """shared case 20-openai-429-retry-after.json, long_wait_variant: no waiting for an hour:
    RateLimited at once, saying 'try again in about 60 minutes' and the provider's message; the
    history (the user's message) is untouched for a later resend."""
    openai_server.script(CASE20_LONG)
    backend = make_backend(openai_server)
    history = user("keep me")
    with pytest.raises(RateLimited) as info:
        collect(backend.stream_chat(history))
    err = info.value
    assert err.retry_after_s == 3600
    assert "about 60 minutes" in str(err) and "Daily request limit reached." in str(err)
    assert backend.pool._sleep == [] and len(openai_server.requests) == 1
    assert history[-1].content == "keep me"


def test_case20_retries_are_bounded(openai_server):
    """shared case 20-openai-429-retry-after.json: 'retries are bounded (e.g. at most 3)'."""
    openai_server.script(*[HttpError(429, None, {"Retry-After": "1"})] * 5)
    backend = make_backend(openai_server, retries_per_key=2)
    with pytest.raises(RateLimited) as info:
        collect(backend.stream_chat(user("q")))
    assert len(openai_server.requests) == 3 and backend.pool._sleep == [1.0, 1.0]
    assert info.value.retry_after_s == 1.0


def test_case20_sdk_exposes_the_header(openai_server):
    """shared case 20-openai-429-retry-after.json: the official client sees 429 and the header."""
    import openai

    openai_server.script(CASE20_429)
    client = openai.OpenAI(base_url=openai_server.url, api_key=GOOD, max_retries=0)
    with pytest.raises(openai.RateLimitError) as info:
        client.chat.completions.create(model="local-model", messages=[{"role": "user", "content": "q"}])
    assert info.value.response.headers["retry-after"] == "2"
    assert info.value.code == "rate_limit_exceeded"
    client.close()


# ------------------------------------------------------------------------------ case 21
def test_case21_A_local_server_without_key_uses_a_placeholder(openai_server):
    """shared case 21-openai-api-key-missing-or-401.json, variant A: no OpenAIError at construction
    for a provider marked as not needing a key; a placeholder key is sent and the chat works."""
    backend = OpenAIBackend(openai_server.url, "local-model", [], needs_key=False, timeout_s=5)
    assert collect(backend.stream_chat(user("hello"))).text == "You said: hello"
    assert openai_server.requests[-1].headers["authorization"] == "Bearer not-needed"
    backend.close()


def test_case21_A_missing_key_for_a_provider_that_needs_one(openai_server):
    """shared case 21-openai-api-key-missing-or-401.json, variant A with needs_key: construction
    works; the first request raises a clear error naming the base URL and the fix, sends nothing."""
    backend = OpenAIBackend(openai_server.url, "local-model", [], needs_key=True)
    stream = backend.stream_chat(user("hello"))
    with pytest.raises(NoApiKey) as info:
        next(stream)
    text = str(info.value)
    assert openai_server.url in text and "OPENAI_API_KEY" in text and "Settings" in text
    # no key was rejected: a sibling of AuthenticationFailed, not a kind of it (the fix differs)
    assert not isinstance(info.value, AuthenticationFailed) and not info.value.retryable
    assert openai_server.requests == []
    with pytest.raises(NoApiKey):
        backend.list_models()


def test_case21_B_wrong_key_is_rejected_once_without_retries_and_never_shown(openai_server, caplog):
    """shared case 21-openai-api-key-missing-or-401.json, variant B: 401 → 'The API key for this
    provider was rejected (401)' naming the base URL; no automatic retry; the key is in no error
    text, repr or log line."""
    caplog.set_level(logging.DEBUG)
    openai_server.required_keys = {GOOD}
    backend = make_backend(openai_server, keys=[BAD])
    with pytest.raises(AuthenticationFailed) as info:
        collect(backend.stream_chat(user("hello")))
    err = info.value
    assert err.status == 401 and "rejected (401)" in str(err) and openai_server.url in str(err)
    assert len(openai_server.requests) == 1 and backend.pool._sleep == []
    for text in (str(err), repr(err), repr(backend), caplog.text):
        assert BAD not in text
    assert err.__cause__ is None  # the SDK's exception (with the server's text) is not chained


# ------------------------------------------------------------------------------ several keys
def test_first_key_rejected_second_used_and_remembered(openai_server):
    """Seed 002's round-robin: key 1 gets 401 → key 2 at once (no pause); the next request starts
    with key 2, the last key that worked."""
    openai_server.required_keys = {GOOD}
    backend = make_backend(openai_server, keys=[BAD, GOOD])
    assert collect(backend.stream_chat(user("one"))).text == "You said: one"
    assert keys_used(openai_server) == [BAD, GOOD] and backend.pool._sleep == []
    collect(backend.stream_chat(user("two")))
    assert keys_used(openai_server) == [BAD, GOOD, GOOD]
    assert backend.pool.last_good == 1


def test_403_also_moves_to_the_next_key(openai_server):
    openai_server.script(HttpError(403))
    backend = make_backend(openai_server, keys=[OTHER, GOOD])
    assert collect(backend.stream_chat(user("x"))).text == "You said: x"
    assert keys_used(openai_server) == [OTHER, GOOD]


def test_every_key_rejected_says_how_many(openai_server):
    openai_server.required_keys = {GOOD}
    backend = make_backend(openai_server, keys=[BAD, OTHER])
    with pytest.raises(AuthenticationFailed) as info:
        collect(backend.stream_chat(user("x")))
    assert info.value.keys_tried == 2 and "All 2 keys were rejected" in str(info.value)
    assert keys_used(openai_server) == [BAD, OTHER]
    assert BAD not in str(info.value) and OTHER not in str(info.value)


def test_list_models_goes_through_the_pool(openai_server):
    openai_server.required_keys = {GOOD}
    backend = make_backend(openai_server, keys=[BAD, GOOD])
    assert [m.name for m in backend.list_models()] == ["local-model"]
    assert [r.key for r in openai_server.all_requests] == [BAD, GOOD]
    with pytest.raises(AuthenticationFailed):
        make_backend(openai_server, keys=[BAD]).list_models()


def test_server_error_is_retried_then_next_key_then_all_keys_failed(openai_server):
    openai_server.script(*[HttpError(503)] * 4)
    backend = make_backend(openai_server, keys=[OTHER, GOOD], retries_per_key=1, retry_interval_s=0.25)
    chunks = []
    with pytest.raises(AllKeysFailed) as info:
        for c in backend.stream_chat(user("x")):
            chunks.append(c)
    err = info.value
    assert err.keys_tried == 2 and "HTTP 503" in str(err) and "overloaded" in str(err)
    assert keys_used(openai_server) == [OTHER, OTHER, GOOD, GOOD]
    assert [c.notice for c in chunks] == ["server error (HTTP 503) — retrying in 0.2 s"] * 2
    assert backend.pool._sleep == [0.25, 0.25]


def test_server_error_then_success(openai_server):
    openai_server.script(HttpError(500, headers={"Retry-After": "1"}))
    backend = make_backend(openai_server)
    result = collect(backend.stream_chat(user("x")))
    assert result.text == "You said: x" and backend.pool._sleep == [1.0]


def test_quota_used_up_moves_to_the_next_key_at_once(openai_server):
    openai_server.script(HttpError(429, {"error": {
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}))
    backend = make_backend(openai_server, keys=[OTHER, GOOD])
    assert collect(backend.stream_chat(user("x"))).text == "You said: x"
    assert keys_used(openai_server) == [OTHER, GOOD] and backend.pool._sleep == []


# ------------------------------------------------------------------------------ typed errors
def test_connection_refused_names_the_server_and_does_not_rotate_keys():
    server = OpenAIServer().start()
    url = server.url
    server.stop()  # nothing listens there any more
    sleeps = Sleeps()
    backend = OpenAIBackend(url, "m", [GOOD, OTHER], sleep=sleeps, timeout_s=2, retries_per_key=2)
    chunks = []
    with pytest.raises(BackendUnreachable) as info:
        for c in backend.stream_chat(user("x")):
            chunks.append(c)
    assert url in str(info.value) and info.value.backend == "openai"
    assert sleeps == [1.0, 1.0]  # retried on the same key, other keys not hammered
    assert chunks[0].notice == "can't reach the server — retrying in 1 s"
    assert GOOD not in str(info.value)


def test_unknown_model_is_model_not_found(openai_server):
    openai_server.strict_models = True
    backend = make_backend(openai_server, model="gpt-9")
    with pytest.raises(ModelNotFound) as info:
        collect(backend.stream_chat(user("x")))
    assert info.value.model == "gpt-9" and info.value.backend == "openai"
    assert len(openai_server.requests) == 1


def test_wrong_base_url_404_says_so(openai_server):
    backend = OpenAIBackend(openai_server.url[: -len("/v1")], "m", [GOOD], sleep=Sleeps())
    with pytest.raises(BackendError) as info:
        collect(backend.stream_chat(user("x")))
    assert info.value.status == 404 and "/v1" in str(info.value)
    backend.close()


@pytest.mark.parametrize(
    "message",
    [
        "registry.ollama.ai/library/gemma:2b does not support tools",
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    ],
)
def test_tools_not_supported(openai_server, message):
    openai_server.script(HttpError(400, {"error": {"message": message, "type": "api_error"}}))
    with pytest.raises(ToolsNotSupported) as info:
        collect(make_backend(openai_server).stream_chat(user("x"), tools=[TODAY]))
    assert "local-model" in str(info.value)


def test_other_400_is_a_backend_error_with_the_server_message(openai_server):
    openai_server.script(HttpError(400, {"error": {"message": "temperature must be <= 2", "type": "invalid"}}))
    with pytest.raises(BackendError) as info:
        collect(make_backend(openai_server).stream_chat(user("x")))
    assert info.value.status == 400 and "temperature must be <= 2" in str(info.value)
    assert len(openai_server.requests) == 1


@pytest.mark.parametrize(
    "reply",
    [
        HttpError(400, {"error": {"message": f"bad key {GOOD} in request"}}),
        HttpError(500, f"internal error for {GOOD}"),
        HttpError(429, {"error": {"message": f"slow down {GOOD}"}}, {"Retry-After": "7200"}),
        HttpError(401, {"error": {"message": f"Incorrect API key provided: {GOOD}"}}),
        HttpError(404, {"error": {"message": f"no route for {GOOD}"}}),
    ],
    ids=["400", "500", "429-long", "401", "404"],
)
def test_key_never_appears_in_error_text_even_when_the_server_echoes_it(openai_server, reply, caplog):
    caplog.set_level(logging.DEBUG)
    openai_server.script(reply, reply, reply)
    backend = make_backend(openai_server, keys=[GOOD], retries_per_key=0)
    with pytest.raises(Exception) as info:
        collect(backend.stream_chat(user("x")))
    err = info.value
    for text in (str(err), repr(err), caplog.text, repr(backend), str(getattr(err, "detail", ""))):
        assert GOOD not in text
    assert "sk-…OOD" in str(err) or isinstance(err, AuthenticationFailed)
