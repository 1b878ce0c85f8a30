#!/usr/bin/env bash
# Peers for bench/bench_peers.py, each in its own venv so they never enter accelsim's
# runtime dependencies. Idempotent: an existing venv is reused and pip skips what is there.
#   bash bench/peers/setup.sh            # both peers
#   bash bench/peers/setup.sh scalesim   # one of them (scalesim | zigzag | stream)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PEERS_PYTHON:-python3.11}"
command -v "$python" >/dev/null || python=python3

make_venv() {  # make_venv NAME PACKAGE...
    local venv="$here/.venv-$1"
    shift
    if [ ! -x "$venv/bin/python" ]; then
        "$python" -m venv "$venv"
    fi
    # (grep drops pip's notes about configured find-links folders that do not exist here)
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" 2>&1 \
        | { grep -v "is ignored: it is neither a file nor a directory" || true; }
    echo "$venv: $("$venv/bin/python" -m pip list --disable-pip-version-check 2>/dev/null \
        | grep -iE "^($(IFS='|'; echo "$*" | sed 's/==[^|]*//g')) " | tr -s ' ' | paste -sd, -)"
}

want="${1:-all}"
# SCALE-Sim v3 (PyPI `scalesim`): pinned numpy as the mission notes (newer numpy breaks it).
if [ "$want" = all ] || [ "$want" = scalesim ]; then
    make_venv scalesim scalesim numpy==2.2.6
fi
# ZigZag (PyPI `zigzag-dse`) imports `six` without declaring it.
if [ "$want" = all ] || [ "$want" = zigzag ]; then
    make_venv zigzag zigzag-dse six
fi
# Stream (PyPI `stream-dse`) needs Python >= 3.12; it imports `six` (through ZigZag) without
# declaring it. Skipped with a note when no Python 3.12 is found.
if [ "$want" = all ] || [ "$want" = stream ]; then
    py312="${PEERS_PYTHON312:-$(command -v python3.12 || true)}"
    [ -n "$py312" ] && "$py312" -c pass 2>/dev/null || py312="$(ls /root/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | head -1)"
    if [ -n "$py312" ]; then
        python="$py312" make_venv stream stream-dse six
    else
        echo "stream: no python3.12 found (set PEERS_PYTHON312); skipped"
    fi
fi
