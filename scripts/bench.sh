#!/usr/bin/env bash
# The README's benchmark table: every figure measured in one run on one machine, printed as
# one line naming the machine and one Markdown table (stdout; progress on stderr).
#   bash scripts/bench.sh [--quick] [--python PY] [--postgres URL | --no-postgres] > table.md
# --quick measures everything briefly (a check that every row works, not figures to quote).
# The rows, their sources and their targets are ROWS in scripts/bench.py.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/bench.py "$@"
