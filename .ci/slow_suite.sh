#!/usr/bin/env bash
# The slow suite (`python -m pytest -m slow`, README "Test") as two pytest processes side by side,
# one per core: the documented commands (tests/test_docs_commands.py, which run in document
# order in one shared folder, so they stay in one process and in their order) and every other
# slow test in the order a single run takes them. Each has its own temporary folder; the Slurm
# test is left to its own step of .ci/run. Exit status: non-zero when either part fails. A
# SIGTERM (the step's limit) stops both parts and prints what each had written.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
common=(-m slow -p no:cacheprovider)
python -m pytest "${common[@]}" --basetemp "$tmp/docs" tests/test_docs_commands.py \
    >"$tmp/docs.log" 2>&1 &
docs=$!
python -m pytest "${common[@]}" --basetemp "$tmp/rest" --ignore tests/test_docs_commands.py \
    --deselect tests/test_slurm_array.py >"$tmp/rest.log" 2>&1 &
rest=$!
show() {
    echo "=== the documented commands (tests/test_docs_commands.py)"
    cat "$tmp/docs.log"
    echo "=== every other slow test"
    cat "$tmp/rest.log"
}
trap 'kill -TERM "$docs" "$rest" 2>/dev/null; wait; show; exit 124' TERM INT
wait "$docs"
docs_status=$?
wait "$rest"
rest_status=$?
show
rm -rf "$tmp"
[ "$docs_status" = 0 ] && [ "$rest_status" = 0 ]
