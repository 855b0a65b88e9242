#!/usr/bin/env bash
# Runs every test of cardhouse from a fresh clone, installing what it needs.
# This is the README's test command; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust: format, lints, tests (engine, service, python crate) =="
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The engine must stay pure: no async, protobuf or Python in its dependency tree.
if cargo tree -p cardhouse -e normal --prefix none | grep -E '^(tokio|tonic|prost|pyo3)' ; then
  echo "engine depends on a forbidden crate" >&2; exit 1
fi
cargo test --workspace --locked
