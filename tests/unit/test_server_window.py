"""Issue 20, the pieces of a window that is the server's: the numbers of the servers' refusals, the served window
over the trained one, where a window comes from (assumed or not), what a refusal teaches, and a tool result cut
to fit."""

from __future__ import annotations

from desktop_agent.core.backends.reasons import context_numbers
from desktop_agent.core.context import CUT_NOTE, plan_request
from desktop_agent.core.errors import ContextTooLong
from desktop_agent.core.messages import Message, ToolCall
from desktop_agent.core.model_info import (
    ModelFacts,
    facts_from_models_entry,
    facts_from_props,
    facts_from_show,
    window_for,
)
from desktop_agent.core.tokens import Calibration, estimate_message

KEY = ("openai", "http://127.0.0.1:8080/v1", "smollm2")


def test_the_numbers_of_each_servers_refusal():
    cases = {
        # OpenAI
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. "
        "Please reduce the length of the messages.": (8192, 9000),
        # llama-cpp-python's server (its own words wrapped in OpenAI's), and the library's
        "This model's maximum context length is 4096 tokens. However, you requested 5479 tokens (5479 in the "
        "messages, None in the completion).": (4096, 5479),
        "Requested tokens (5000) exceed context window of 4096": (4096, 5000),
        # llama.cpp's server
        "request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it": (4096, 5000),
        # vLLM (newer wording)
        "'max_tokens' is too large: 1000. This model's maximum context length is 4096 tokens and your request has "
        "3500 input tokens (1000 > 4096 - 3500).": (4096, 3500),
        # Ollama and others without numbers
        "prompt is too long": (None, None),
    }
    for text, numbers in cases.items():
        assert context_numbers(text) == numbers, text
    error = ContextTooLong("Requested tokens (5000) exceed context window of 4096")
    assert (error.window, error.requested) == (4096, 5000)


def test_the_served_window_wins_over_the_trained_one():
    llama_cpp_models = {"id": "m", "owned_by": "llamacpp", "meta": {"n_ctx_train": 131072, "n_vocab": 49152}}
    facts = facts_from_models_entry(llama_cpp_models)
    assert facts == ModelFacts(trained=131072) and facts.context_length is None
    served = facts_from_props({"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1}, facts)
    assert served.context_length == 4096 and served.trained == 131072
    assert facts_from_props({"n_ctx": 2048}).context_length == 2048
    assert facts_from_props("not json") == ModelFacts()
    assert facts_from_models_entry({"id": "m", "max_model_len": 32768}).context_length == 32768


def test_an_ollama_modelfile_num_ctx_is_the_served_window():
    show = {"model_info": {"general.architecture": "llama", "llama.context_length": 131072},
            "parameters": 'num_ctx 4096\nstop "<|eot_id|>"', "capabilities": ["completion"]}
    facts = facts_from_show(show)
    assert (facts.context_length, facts.num_ctx) == (131072, 4096)
    assert window_for(facts, setting=None, default=8192, cap=8192).tokens == 4096


def test_where_a_window_comes_from():
    nothing = ModelFacts()
    assert window_for(nothing, setting=None, default=8192, cap=None).assumed
    assert window_for(ModelFacts(trained=2048), setting=None, default=8192, cap=None).tokens == 2048, "capped"
    told = window_for(ModelFacts(4096), setting=None, default=8192, cap=None)
    assert (told.tokens, told.source) == (4096, "server")
    assert window_for(nothing, setting=16384, default=8192, cap=None).source == "setting"
    learned = window_for(nothing, setting=None, default=8192, cap=None, learned=4096)
    assert (learned.tokens, learned.assumed, learned.source) == (4096, False, "learned")
    assert window_for(ModelFacts(32768), setting=None, default=8192, cap=8192).tokens == 8192


def test_a_refusal_with_the_servers_count_calibrates_at_once():
    """The server counted 7,300 tokens where we estimated 4,400 (a small model's tokenizer): the ratio is learned
    from the refusal, and the limit is the window it named — so the request asked again fits."""
    calibration = Calibration()
    calibration.learn_window(KEY, 4096, 7300)
    calibration.refused(KEY, 4400)
    assert abs(calibration.ratio(KEY) - 7300 / 4400) < 0.01
    assert calibration.limit(KEY) == 4096 and calibration.window(KEY) == 4096
    calibration.learn_window(KEY, None)  # a refusal without numbers: our own estimate is the limit
    calibration.refused(KEY, 3000)
    assert calibration.limit(KEY) == 3000


def test_a_tool_result_too_big_for_the_window_is_cut_to_fit_saying_so():
    call = ToolCall(name="read_file", arguments={"path": "big.log"})
    history = [Message(role="user", content="read big.log"), Message(role="assistant", tool_calls=[call]),
               Message(role="tool", content="line\n" * 4000, tool_call_id=call.id, tool_name="read_file")]
    selection = plan_request(history, "SYSTEM", budget=1500)
    assert selection.fits and selection.tokens <= 1500 and selection.trimmed == 1
    result = selection.messages[-1]
    assert result.role == "tool" and result.content.startswith("line\nline\n")
    assert result.content.endswith(CUT_NOTE.format(cut=20000 - len(result.content.split("\n[...")[0])))
    assert estimate_message(result) < 1500 and history[-1].content == "line\n" * 4000, "the chat keeps it whole"
