#!/usr/bin/env bash
# Every tier of the suite (what `pytest --all-tiers` runs), as two concurrent pytest processes: the tiers that wait on
# a JVM, a browser, node or a peer, and the rest (a pytest process keeps about one core busy). -m "X" and
# -m "not (X)" together select every test --all-tiers selects. Extra arguments go to both (e.g. -x, -p no:randomly).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/jobs.sh
tiers="spark or java or browser or node or peer"
job "spark-java-browser-node-peer" .venv/bin/python -m pytest --all-tiers -q -m "$tiers" "$@"
status=0
.venv/bin/python -m pytest --all-tiers -m "not ($tiers)" "$@" || status=$?
finish_all "spark-java-browser-node-peer" || status=1
exit "$status"
