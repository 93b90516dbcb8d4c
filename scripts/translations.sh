#!/usr/bin/env bash
# Refresh the window's translations after UI strings change — the ONE command for it:
#
#     bash scripts/translations.sh            # from the repository root
#
# 1. pyside6-lupdate reads every translate("Context", "text") / self.tr("text") / QT_TRANSLATE_NOOP call in
#    desktop_agent/ui and desktop_agent/core (the terminal, desktop_agent/cli, stays English) and updates
#    desktop_agent/translations/desktop_agent_zh_CN.ts: new texts are added as unfinished, changed ones keep
#    their old translation as a hint, removed ones are dropped (-no-obsolete).
# 2. pyside6-lrelease builds desktop_agent_zh_CN.qm next to it (the file the app loads; it is committed, so a
#    plain `pip install .` ships it, and tests/unit/test_translations.py fails when it is stale).
#
# After it, translate what is new: open the .ts in Qt Linguist (`pyside6-linguist`) or edit the XML —
# every <message> with type="unfinished" needs its <translation>, keeping the {placeholders} and %n of the
# source — then run this script again to rebuild the .qm. Running it twice changes nothing (idempotent).
# Tools: PYSIDE6_BIN (default: the bin folder of the venv's python, .venv/bin, or PATH).
set -euo pipefail
cd "$(dirname "$0")/.."

find_tool() {
    local name=$1 dir
    for dir in "${PYSIDE6_BIN:-}" .venv/bin /work/main/.venv/bin "$(dirname "$(command -v python3 || echo /)")"; do
        if [[ -n "$dir" && -x "$dir/$name" ]]; then echo "$dir/$name"; return; fi
    done
    command -v "$name" || { echo "translations.sh: $name not found (set PYSIDE6_BIN to PySide6's bin folder)" >&2; exit 1; }
}
LUPDATE=$(find_tool pyside6-lupdate)
LRELEASE=$(find_tool pyside6-lrelease)

TS_DIR=desktop_agent/translations
mkdir -p "$TS_DIR"
# the sources, sorted (the same order every run: the .ts does not churn)
mapfile -t SOURCES < <(find desktop_agent/ui desktop_agent/core -name '*.py' -not -path '*/__pycache__/*' | LC_ALL=C sort)

for lang in zh_CN; do
    ts="$TS_DIR/desktop_agent_${lang}.ts"
    "$LUPDATE" -no-obsolete -locations none -source-language en -target-language "$lang" "${SOURCES[@]}" -ts "$ts"
    # lupdate reads every `#:` attribute comment of the sources as a note for translators: keep the .ts to the
    # texts (a disambiguation, the third argument of translate(), stays: it is <comment>)
    perl -0pi -e 's{\n *<extracomment>.*?</extracomment>}{}gs' "$ts"
    "$LRELEASE" -nounfinished -removeidentical "$ts" -qm "$TS_DIR/desktop_agent_${lang}.qm"
    unfinished=$(grep -c 'type="unfinished"' "$ts" || true)
    if [[ "$unfinished" != 0 ]]; then
        echo "translations.sh: $unfinished text(s) in $ts still need a translation (type=\"unfinished\")" >&2
    fi
done
