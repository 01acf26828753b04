#!/usr/bin/env bash
# A host's first minute: a fresh clone of this repository, `make serve`, and the time
# until the lobby page answers; then the size of the serving venv and whether any
# development or learning library is in it.  Run from the repository:
#
#     bash bench/first_page.sh [RUNS]        # default 3 runs, each from a new clone
#
# pip's cache is left as it is (warm after the first run); port 8000 must be free.
set -euo pipefail
runs=${1:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
for run in $(seq 1 "$runs"); do
    dir=$(mktemp -d /tmp/bh-first-page-XXXXXX)
    git clone -q "$repo" "$dir/baohuang"
    cd "$dir/baohuang"
    start=$(date +%s.%N)
    setsid make serve > "$dir/serve.log" 2>&1 &     # (a process group of its own)
    maker=$!
    until curl -sf -o /dev/null http://127.0.0.1:8000/; do
        if ! kill -0 "$maker" 2>/dev/null; then
            echo "make serve ended before the page answered:" >&2
            tail -20 "$dir/serve.log" >&2
            exit 1
        fi
        sleep 0.2
    done
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    kill -- "-$maker" 2>/dev/null || true
    wait "$maker" 2>/dev/null || true
    size=$(du -sm .venv | cut -f1)
    stack=$(ls .venv/lib/python3*/site-packages | grep -iE '^(torch|open_spiel|rlcard|playwright|mypy|ruff|pytest|gymnasium|pettingzoo)' | tr '\n' ' ' || true)
    printf 'run %d: first page after %.1f s; .venv %d MB; development or learning libraries: %s\n' \
        "$run" "$seconds" "$size" "${stack:-none}"
    cd "$repo"
    rm -rf "$dir"
done
