#!/usr/bin/env bash
# Idempotent setup on a fresh machine (Python 3.11, node/npm, Debian; package registries only).
#   bash tools/setup.sh          .venv with the package (enough for the CLI and the demo)
#   bash tools/setup.sh --test   also the test dependencies (pyspark too: its Hadoop jars let Java Paimon
#                                write live tables), the pinned Kaitai compiler (npm ci)
#                                Graphviz and a JDK (apt), and the Java Paimon 0.9.0 oracle jar (a
#                                hash-pinned pip download): what the spec and Java tests need
set -euo pipefail
cd "$(dirname "$0")/.."

python=python3.11
command -v "$python" >/dev/null || python=python3
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip

if [ "${1:-}" = "--test" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test,spark]"
  (cd tools && npm ci --no-audit --no-fund --loglevel=error)
  .venv/bin/python tools/fetch_java_oracle.py
  missing=()
  command -v dot >/dev/null || missing+=(graphviz)
  command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
else
  .venv/bin/python -m pip install -q --disable-pip-version-check -e .
fi
