#!/usr/bin/env bash
# Runs every test of cardhouse from a fresh clone, installing what it needs.
# This is the README's test command; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust: format, lints, tests (engine, service, python crate) =="
cargo fmt --all -- --check
# The game modules are declared inside the `games!` macro, which rustfmt does not expand.
rustfmt --edition 2024 --check engine/src/games/*/mod.rs
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc -p cardhouse --no-deps --locked
# The engine must stay pure: no async, protobuf or Python in its dependency tree.
if cargo tree -p cardhouse -e normal --prefix none | grep -E '^(tokio|tonic|prost|pyo3)' ; then
  echo "engine depends on a forbidden crate" >&2; exit 1
fi
# No two files import each other, directly or round a circle (a folder's mod.rs and its own
# children aside): exit status 1 names the circle.
python3 scripts/module_cycles.py engine/src python/src service/src >/dev/null || {
  python3 scripts/module_cycles.py engine/src python/src service/src | grep -A8 CIRCLE >&2
  echo "import circles between files: see above" >&2; exit 1
}
# The replica tests (service/tests/replicas/) need a PostgreSQL server (by default
# postgres://postgres@127.0.0.1:5432/postgres, trust auth; another one with
# CARDHOUSE_TEST_POSTGRES=<admin URL>). Without one they would skip; here they must run, so a
# missing server fails them.
export CARDHOUSE_REQUIRE_POSTGRES=1
# The balancer tests (service/tests/balancer.rs) run nginx (Debian's package) in front of two
# replicas, from deploy/nginx.conf; here they must run, so nginx is installed when missing
# (CI runs as root; elsewhere through sudo) and a missing nginx fails them.
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nginx
fi
export CARDHOUSE_REQUIRE_NGINX=1
# The events tests (service/tests/events/) publish to a nats-server with JetStream of their
# own (Debian's package); here they must run, so it is installed when missing and a missing
# one fails them.
if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nats-server
fi
export CARDHOUSE_REQUIRE_NATS=1
cargo test --workspace --locked

# ---------------------------------------------------------------------------------------------
# Python section (python/): build the `cardhouse` package into the virtual environment .venv,
# check the stubs against the built extension, run pytest (including the golden playthroughs).
# Needs CPython >= 3.10 with the venv module; everything else comes from PyPI.
# ---------------------------------------------------------------------------------------------
echo "== Python: build into .venv, stubtest, pytest =="
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv || {
    echo "cannot create .venv with $PYTHON -m venv (on Debian: apt-get install python3-venv)" >&2
    exit 1
  }
fi
VPY=.venv/bin/python
export PATH="$PWD/.venv/bin:$PATH" # as `source .venv/bin/activate`: the build backend runs `maturin`
"$VPY" -m pip install --quiet --upgrade "pip>=24"
"$VPY" -m pip install --quiet \
  "maturin>=1.9.4,<2" "numpy>=1.26,<3" "pytest>=8,<9" \
  "pettingzoo>=1.25,<2" "gymnasium>=1.1,<2" "mypy>=1.15,<2" \
  "matplotlib>=3.7,<4" "nbformat>=5.9,<6" "nbclient>=0.9,<1" "ipykernel>=6.25,<8"

# Ray RLlib and torch (the `rllib` extra), for python/tests/test_rllib.py and
# test_ray_simulate.py, which must run (never skip). Large: torch from PyPI brings the CUDA
# libraries (about 3.2 GB downloaded, 6 GB installed, about 2 minutes here), so it is its own
# step and stays in .venv: a rerun on the same machine finds the requirements satisfied
# without any download. Installed before the build and stubtest because ray[rllib] pins its
# own gymnasium version, which the whole suite then runs with.
echo "== Python: Ray RLlib and torch into .venv (large; once per machine) =="
RLLIB_REQS=("ray[rllib]>=2.60,<3" "torch>=2.3,<3")
if "$VPY" -m pip install --quiet --no-index "${RLLIB_REQS[@]}" >/dev/null 2>&1; then
  echo "already installed: ${RLLIB_REQS[*]}"
else
  START=$SECONDS
  "$VPY" -m pip install --quiet "${RLLIB_REQS[@]}"
  echo "installed ${RLLIB_REQS[*]} in $((SECONDS - START)) s"
fi
# The abi3 wheel (CPython >= 3.10) that maturin builds for the README's `pip install ./python`,
# built once into a temporary directory (never committed) and installed from there; with the
# pinned maturin above, so no download is needed. test_wheel.py installs the same wheel into
# a fresh virtual environment without Rust on PATH.
WHEEL_DIR="$(mktemp -d)"
trap 'rm -rf "$WHEEL_DIR"' EXIT
maturin build --quiet --release -m python/Cargo.toml --out "$WHEEL_DIR"
WHEEL="$(ls "$WHEEL_DIR"/cardhouse-*-cp310-abi3-*.whl)"
"$VPY" -m pip install --quiet --force-reinstall --no-deps "$WHEEL"
"$VPY" -m mypy.stubtest cardhouse
CARDHOUSE_WHEEL="$WHEEL" "$VPY" -m pytest python/tests -q -p no:cacheprovider

# ---------------------------------------------------------------------------------------------
# gRPC client section (tests/grpc): a Python grpcio client drives a whole match on the real
# `cardhouse` binary (started on 127.0.0.1:0), proving the protos work from another language.
# Stubs are generated at test time by grpcio-tools (no system protoc, nothing committed).
# ---------------------------------------------------------------------------------------------
echo "== gRPC: Python grpcio client against the cardhouse binary =="
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet "grpcio>=1.60,<2" "grpcio-tools>=1.60,<2" "pytest>=8,<9"
cargo build -p cardhouse-server --bin cardhouse --locked
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps --locked \
  | .venv/bin/python -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
CARDHOUSE_BIN="$TARGET_DIR/debug/cardhouse" .venv/bin/python -m pytest tests/grpc -q -p no:cacheprovider

# ---------------------------------------------------------------------------------------------
# Web section (web/, tests/web): the web table's unit tests (vitest), a check that the
# committed build in web/dist (embedded in the binary by `cardhouse serve --web`, so that
# `cargo build` needs no Node) is what its sources build, and the browser tests: headless
# Chromium (Debian's chromium and chromium-driver, installed here; no browser download)
# driven by Selenium against the real binary. Needs Node >= 20.19 and npm (Vite 7).
# ---------------------------------------------------------------------------------------------
echo "== Web: vitest, the committed build, Chromium through Selenium =="
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi
command -v npm >/dev/null || { echo "the web section needs Node >= 20.19 and npm" >&2; exit 1; }
(cd web && npm ci --no-audit --no-fund --loglevel=error && npm test)
WEB_BUILD="$(mktemp -d)"
(cd web && npx buf generate && npx tsc --noEmit && npx vite build --outDir "$WEB_BUILD" --emptyOutDir --logLevel warn)
if ! diff -r "$WEB_BUILD" web/dist; then
  echo "web/dist is not the build of web/: run 'npm run build' in web/ and commit web/dist" >&2
  exit 1
fi
rm -rf "$WEB_BUILD"
.venv/bin/python -m pip install --quiet "selenium>=4.20,<5" "pytest>=8,<9"
CARDHOUSE_BIN="$TARGET_DIR/debug/cardhouse" .venv/bin/python -m pytest tests/web -q -p no:cacheprovider
