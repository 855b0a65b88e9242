"""Every figure of the README's benchmark table, measured in one run on one machine.

Run through ``bash scripts/bench.sh [--quick] [--python PY] [--postgres URL | --no-postgres]``
from anywhere in the repository. It builds what it measures (the engine's criterion benches,
the gRPC load bench ``cardhouse-bench``), runs each measurement once, and prints to stdout one
line naming the machine and one Markdown table ``| what | figure | target |``; progress goes
to stderr. ``--quick`` runs every measurement briefly, to check that the script and every row
work; its figures are not for the README.

The sources, each run once however many rows read it:

* criterion (``engine/benches/<game>.rs``): ``cargo bench -p cardhouse --bench <game>`` with a
  filter naming exactly the benchmarks the rows read, whose medians are read from
  ``target/criterion/<group>/<function>/new/estimates.json`` (files older than the run are
  refused, so a figure is never a leftover of an earlier run);
* the ratio to the bound: ``cargo bench -p cardhouse --bench <game> -- ratio``, whose printed
  lines give the engine, the bound and their median per-round ratio;
* ``python/bench.py --game all`` in the given Python (the ``cardhouse`` installed there: build it
  from this checkout, ``pip install ./python``), per CPU second of its thread;
* ``cardhouse-bench`` (release build), echo, ``Matches.Act``, ``Engine.BatchStep`` and, when
  PostgreSQL answers, ``Act`` on one and two replicas there; its flags are the union of the
  rows' (``Grpc(..., flags=("--tls",))`` adds a phase).

A row is one entry of ``ROWS``: what it measures, its figure (built from the sources above)
and its target, which may say whether the figure meets it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/postgres"
GAMES = ("jass", "klaberjass", "cribbage", "avinas")
TITLE = {"jass": "Jass", "klaberjass": "Klaberjass", "cribbage": "Cribbage", "avinas": "Avinas"}


class Missing(Exception):
    """A figure that this run could not measure; the row says why."""


# --------------------------------------------------------------------------------------------
# Sources: what a row reads. Each is a hashable key; `Run` runs the commands behind them once.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Crit:
    """A criterion benchmark of engine/benches/<bench>.rs, `<group>/<function>`: its median
    time per element (criterion's throughput: a deal, a game, a call of the 4,096 sampled)."""

    bench: str
    id: str


@dataclass(frozen=True)
class RatioLine:
    """A line of `cargo bench --bench <bench> -- ratio`, by the name it starts with."""

    bench: str
    name: str


@dataclass(frozen=True)
class Py:
    """A line of `python/bench.py --game all` for one game (its CPU-second rate), or with
    label "floor ratio" the loop's ratio to its floor."""

    game: str
    label: str


@dataclass(frozen=True)
class Grpc:
    """A phase of `cardhouse-bench`, by the start of its name; `flags` the bench needs for it."""

    phase: str
    flags: tuple[str, ...] = ()
    postgres: bool = False


# --------------------------------------------------------------------------------------------
# Figures: how a row turns what it read into its text and the values its target checks.
# --------------------------------------------------------------------------------------------


def si(x: float, unit: str = "") -> str:
    """3 significant figures with k / M: 1,234,567 -> '1.23 M'."""
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {prefix}{unit}".rstrip()
    return f"{x:.3g} {unit}".rstrip()


def ns(x: float) -> str:
    return f"{x:.3g} ns" if x < 1000 else f"{x / 1000:.3g} µs"


@dataclass
class Figure:
    """The sources a row reads and a function from their values to (text, checked values)."""

    sources: list
    make: Callable[[list], tuple[str, dict[str, float]]]


def rate(src: Crit, unit: str) -> Figure:
    """Elements per second of a criterion benchmark: '1.02 M deals/s'."""

    def make(v: list) -> tuple[str, dict[str, float]]:
        r = 1e9 / v[0]
        return f"{si(r)} {unit}/s", {"rate": r}

    return Figure([src], make)


def time_per(src: Crit, what: str) -> Figure:
    """The median time of one element of a criterion benchmark: '1.2 ms a deal'."""

    def make(v: list) -> tuple[str, dict[str, float]]:
        t = v[0]
        text = f"{t / 1e6:.3g} ms" if t >= 1e6 else ns(t)
        return f"{text} {what}", {"ns": t}

    return Figure([src], make)


def per_call(bench: str, group: str, names: list[str]) -> Figure:
    """Nanoseconds per call of several criterion benchmarks, joined by ' / '."""
    srcs = [Crit(bench, f"{group}/{n}") for n in names]
    return Figure(srcs, lambda v: (" / ".join(ns(x) for x in v), {}))


def bound_ratio(bench: str, same_work: str, play_phase: str | None = None) -> Figure:
    """The median per-round ratio to the same-work bound, the deal rates, and the ratio to the
    play-phase bound where the game has one."""
    srcs = [RatioLine(bench, same_work)] + ([RatioLine(bench, play_phase)] if play_phase else [])

    def make(v: list) -> tuple[str, dict[str, float]]:
        sw = v[0]
        text = f"**{sw['ratio']:.2f}×**"
        if play_phase:
            text += f" ({v[1]['ratio']:.2f}× the play-phase bound)"
        return text, {"ratio": sw["ratio"]}

    return Figure(srcs, make)


def py_loop() -> Figure:
    """The Python loop per game: steps per CPU second and the ratio to its floor."""
    srcs = [Py(g, "python loop: legal_actions + apply") for g in GAMES]
    srcs += [Py(g, "floor ratio") for g in GAMES]

    def make(v: list) -> tuple[str, dict[str, float]]:
        n = len(GAMES)
        parts = [f"{TITLE[g]} {si(v[i])} ({v[n + i]:.2f}×)" for i, g in enumerate(GAMES)]
        values = {f"{g} rate": v[i] for i, g in enumerate(GAMES)}
        values |= {f"{g} floor": v[n + i] for i, g in enumerate(GAMES)}
        return "; ".join(parts), values

    return Figure(srcs, make)


def py_rate(label: str) -> Figure:
    """One line of python/bench.py for every game, steps per CPU second."""
    srcs = [Py(g, label) for g in GAMES]
    return Figure(
        srcs,
        lambda v: (
            "; ".join(f"{TITLE[g]} {si(x)}" for g, x in zip(GAMES, v)),
            {g: x for g, x in zip(GAMES, v)},
        ),
    )


def grpc_rate(phase: Grpc, of_echo: bool = False) -> Figure:
    """Requests per second of a phase with its latencies, and its share of echo's rate."""
    srcs = [phase] + ([Grpc("echo")] if of_echo else [])

    def make(v: list) -> tuple[str, dict[str, float]]:
        p = v[0]
        text = f"{si(p['rps'])} req/s, p50 {p['p50']:.3g} ms, p99 {p['p99']:.3g} ms"
        values = {"rps": p["rps"]}
        if of_echo:
            share = 100 * p["rps"] / v[1]["rps"]
            text = f"**{share:.0f}% of echo**; " + text
            values["of echo"] = share
        return text, values

    return Figure(srcs, make)


def grpc_steps(phase: Grpc) -> Figure:
    return Figure([phase], lambda v: (f"{si(v[0]['steps'])} player steps/s", {"rate": v[0]["steps"]}))


def pg_cpu(phase: Grpc) -> Figure:
    """CPU per request in PostgreSQL and in the replica's server threads."""

    def make(v: list) -> tuple[str, dict[str, float]]:
        p = v[0]
        text = f"{p['pg_us']:.0f} µs in PostgreSQL, {p['server_us']:.0f} µs in the replica"
        return text, {"pg": p["pg_us"], "server": p["server_us"]}

    return Figure([phase], make)


def grpc_share(phase: Grpc, of: Grpc, name: str) -> Figure:
    def make(v: list) -> tuple[str, dict[str, float]]:
        share = 100 * v[0]["rps"] / v[1]["rps"]
        return f"{share:.0f}% of {name} ({si(v[0]['rps'])} against {si(v[1]['rps'])} req/s)", {
            "share": share
        }

    return Figure([phase, of], make)


@dataclass
class Target:
    """A row's target in words, and (optionally) a check of the figure's values, which
    returns what misses it: nothing (met), `[""]` (not met), or names ("not met by ...")."""

    text: str
    misses: Callable[[dict[str, float]], list[str]] | None = None


def at_least(text: str, key: str, bound: float) -> Target:
    return Target(text, lambda v: [] if v[key] >= bound else [""])


def at_most(text: str, bounds: dict[str, tuple[float, str]]) -> Target:
    """Each value at most its bound; a miss is named by the bound's label."""
    return Target(text, lambda v: [label for k, (b, label) in bounds.items() if v[k] > b])


def every_game(text: str, bounds: dict[str, float]) -> Target:
    """Per game: each suffix of `bounds` ('rate', 'floor', or '' for the value itself) at
    least its bound; the games that miss are named."""

    def misses(v: dict[str, float]) -> list[str]:
        out = []
        for g in GAMES:
            if any(v[f"{g} {k}".strip()] < b for k, b in bounds.items()):
                out.append(TITLE[g])
        return out

    return Target(text, misses)


@dataclass
class Row:
    what: str
    figure: Figure
    target: Target = field(default_factory=lambda: Target("(none)"))


ECHO = Grpc("echo")
ACT = Grpc("Matches.Act, one node")
BATCH = Grpc("Engine.BatchStep")
PG1 = Grpc("Matches.Act, PostgreSQL, 1 replica", postgres=True)
PG_RR = Grpc("Matches.Act, PostgreSQL, 2 replicas, round-robin", postgres=True)
PG_STICKY = Grpc("Matches.Act, PostgreSQL, 2 replicas, sticky", postgres=True)

# The table, in order. A new row is one entry here (its source runs when a row reads it).
ROWS = [
    Row(
        "Jass: random full deals (shuffle to score, uniform among legal actions, `wys = manual`)",
        rate(Crit("jass", "jass/random_deal_manual_wys"), "deals"),
        at_least("1 M deals/s", "rate", 1e6),
    ),
    Row(
        "Jass: random deals against the same-work bound (`-- ratio`)",
        bound_ratio(
            "jass",
            "jass random deal (wys = manual) against the same-work bound",
            "jass random deal (wys = manual) against the play-phase bound",
        ),
        at_least("≥ 0.85×", "ratio", 0.85),
    ),
    Row(
        "Jass: `legal_actions` / `apply` (with a clone) / `write_observation`, per call",
        per_call("jass", "jass_calls", ["legal_actions", "apply", "observation"]),
    ),
    Row(
        "Klaberjass: random full deals (cut and shuffle to score)",
        rate(Crit("klaberjass", "klaberjass/random_deal"), "deals"),
        at_least("1 M deals/s", "rate", 1e6),
    ),
    Row(
        "Klaberjass: random deals against the same-work bound",
        bound_ratio(
            "klaberjass",
            "klaberjass random deal against the same-work bound",
            "klaberjass random deal against the play-phase bound",
        ),
        at_least("≥ 0.85×", "ratio", 0.85),
    ),
    Row(
        "Klaberjass: `legal_actions` / `apply` (with a clone) / `write_observation`",
        per_call("klaberjass", "klaberjass_calls", ["legal_actions", "apply", "observation"]),
    ),
    Row(
        "Cribbage: random full 2-player games to 121",
        rate(Crit("cribbage", "cribbage/random_game_to_121_2p"), "games"),
        at_least("105 k games/s (10× OpenSpiel's C++)", "rate", 105e3),
    ),
    Row(
        "Cribbage: `score_hand` (4 cards and the starter, with the breakdown)",
        rate(Crit("cribbage", "cribbage_score_hand/score_hand"), "hands"),
        at_least("10 M hands/s", "rate", 10e6),
    ),
    Row(
        "Cribbage: `legal_actions` / `apply` (with a clone) / `write_observation`",
        per_call("cribbage", "cribbage_calls", ["legal_actions", "apply", "observation"]),
    ),
    Row(
        "Avinas: random full deals (the deal with exposed cards to score)",
        rate(Crit("avinas", "avinas/random_deal"), "deals"),
        at_least("1 M deals/s", "rate", 1e6),
    ),
    Row(
        "Avinas: random deals against its (same-work) bound",
        bound_ratio("avinas", "avinas random deal (early stop allowed)"),
        at_least("≥ 0.85×", "ratio", 0.85),
    ),
    Row(
        "Avinas: `legal_actions` / `apply` (with a clone) / `write_observation`",
        per_call("avinas", "avinas_calls", ["legal_actions", "apply", "observation"]),
    ),
    Row(
        "Python: `legal_actions()` + `apply(a)` loop, steps per CPU second (its ratio to its "
        "floor, the same loop over the cheapest extension call)",
        py_loop(),
        every_game("0.8 M steps/s and ≥ 0.6× the floor", {"rate": 0.8e6, "floor": 0.6}),
    ),
    Row(
        "Python: the same loop + `write_observation` into a preallocated array",
        py_rate("python loop: + write_observation every step"),
        every_game("0.4 M steps/s", {"": 0.4e6}),
    ),
    Row(
        "Python: `VectorEnv(256).step`, observations and masks of every env, per CPU second",
        py_rate("VectorEnv(256).step alone, obs + masks"),
        Target(
            "5 M steps/s; Jass 10 M",
            lambda v: [TITLE[g] for g in GAMES if v[g] < (10e6 if g == "jass" else 5e6)],
        ),
    ),
    Row("gRPC: bare tonic unary echo, 256 in flight", grpc_rate(ECHO), Target("(the reference)")),
    Row(
        "gRPC: `Matches.Act`, persisted (fdatasync) before each acknowledgement",
        grpc_rate(ACT, of_echo=True),
        at_least("50% of echo", "of echo", 50),
    ),
    Row(
        "gRPC: `Engine.BatchStep` over loopback",
        grpc_steps(BATCH),
        at_least("1 M steps/s", "rate", 1e6),
    ),
    Row(
        "gRPC: `Matches.Act` on PostgreSQL (same machine, `fsync` on), one replica, 256 in flight",
        grpc_rate(PG1, of_echo=True),
        at_least("≥ 25% of echo", "of echo", 25),
    ),
    Row(
        "PostgreSQL: CPU per `Act` (one replica)",
        pg_cpu(PG1),
        at_most(
            "≤ 50 µs and ≤ 60 µs",
            {"pg": (50, "PostgreSQL's"), "server": (60, "the replica's")},
        ),
    ),
    Row(
        "gRPC: `Act` on two replicas, each client alternating between them (round-robin)",
        grpc_share(PG_RR, PG_STICKY, "sticky"),
        at_least("≥ 90% of sticky", "share", 90),
    ),
]


# --------------------------------------------------------------------------------------------
# Running the sources.
# --------------------------------------------------------------------------------------------


def log(msg: str) -> None:
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


class Run:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.quick = args.quick
        self.start = time.time()
        self.loads = [loadavg()]
        self.values: dict[object, object] = {}
        self.failed: dict[object, str] = {}

    def sh(self, cmd: list[str], what: str) -> str:
        log(f"{what}: {shlex.join(cmd)}")
        t = time.time()
        self.loads.append(loadavg())
        proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        self.loads.append(loadavg())
        log(f"{what}: {time.time() - t:.0f} s, load average {self.loads[-1]:.2f}")
        if proc.returncode != 0:
            raise Missing(f"`{shlex.join(cmd)}` failed (exit {proc.returncode})")
        return proc.stdout

    def measure(self, sources: list) -> None:
        """Runs every command the sources need, grouped: one criterion run per bench, one
        ratio run per bench, one python/bench.py, one cardhouse-bench."""
        crit: dict[str, list[str]] = {}
        for s in sources:
            if isinstance(s, Crit):
                crit.setdefault(s.bench, [])
                if s.id not in crit[s.bench]:
                    crit[s.bench].append(s.id)
        ratio = sorted({s.bench for s in sources if isinstance(s, RatioLine)})
        py = any(isinstance(s, Py) for s in sources)
        grpc = [s for s in sources if isinstance(s, Grpc)]

        for bench, ids in crit.items():
            self.guard(sources, lambda s, b=bench: isinstance(s, Crit) and s.bench == b,
                       lambda b=bench, i=ids: self.criterion(b, i))
        for bench in ratio:
            self.guard(sources, lambda s, b=bench: isinstance(s, RatioLine) and s.bench == b,
                       lambda b=bench: self.ratio(b))
        if py:
            self.guard(sources, lambda s: isinstance(s, Py), self.python)
        if grpc:
            self.guard(sources, lambda s: isinstance(s, Grpc), lambda: self.grpc(grpc))

    def guard(self, sources: list, mine: Callable, run: Callable) -> None:
        try:
            run()
        except Missing as e:
            for s in sources:
                if mine(s):
                    self.failed.setdefault(s, str(e))

    def criterion(self, bench: str, ids: list[str]) -> None:
        if self.quick:
            opts = ["--warm-up-time=0.1", "--measurement-time=0.3", "--sample-size=10"]
        else:
            opts = ["--warm-up-time=3", "--measurement-time=10"]
        filt = "^(" + "|".join(re.escape(i) for i in ids) + ")$"
        started = time.time()
        cmd = ["cargo", "bench", "--quiet", "-p", "cardhouse", "--bench", bench, "--", "--noplot"]
        self.sh(cmd + opts + [filt], f"criterion {bench}")
        for i in ids:
            d = ROOT / "target" / "criterion" / i / "new"
            est, meta = d / "estimates.json", d / "benchmark.json"
            if not est.is_file() or est.stat().st_mtime < started:
                self.failed[Crit(bench, i)] = f"criterion wrote no fresh {est.relative_to(ROOT)}"
                continue
            median = json.loads(est.read_text())["median"]["point_estimate"]
            elements = (json.loads(meta.read_text()).get("throughput") or {}).get("Elements", 1)
            self.values[Crit(bench, i)] = median / elements

    def ratio(self, bench: str) -> None:
        out = self.sh(["cargo", "bench", "--quiet", "-p", "cardhouse", "--bench", bench, "--", "ratio"],
                      f"ratio {bench}")
        pattern = re.compile(
            r"^(?P<name>.+?): engine (?P<engine>[\d.]+) M deals/s, bound (?P<bound>[\d.]+) "
            r"M deals/s, ratio (?P<ratio>[\d.]+) \(.*per-round ratios (?P<lo>[\d.]+)-(?P<hi>[\d.]+)\)"
        )
        for line in out.splitlines():
            m = pattern.match(line)
            if m:
                self.values[RatioLine(bench, m["name"])] = {
                    k: float(m[k]) for k in ("engine", "bound", "ratio", "lo", "hi")
                }

    def python(self) -> None:
        py = self.args.python
        probe = subprocess.run([py, "-c", "import cardhouse, numpy; print(cardhouse.__file__)"],
                               cwd="/", capture_output=True, text=True)
        if probe.returncode != 0:
            raise Missing(f"no `cardhouse` in {py} (`pip install ./python`)")
        log(f"python: cardhouse from {probe.stdout.strip()}")
        seconds = "0.3" if self.quick else "10"
        out = self.sh([py, "python/bench.py", "--game", "all", "--seconds", seconds], "python")
        game = None
        for line in out.splitlines():
            m = re.match(r"cardhouse \S+, (\w+) ", line)
            if m:
                game = m[1]
                continue
            m = re.match(r"python loop at ([\d.]+)x its floor", line)
            if m and game:
                self.values[Py(game, "floor ratio")] = float(m[1])
                continue
            m = re.match(r"(.+?)\s+([\d,]+)\s+([\d,]+)$", line)
            if m and game:
                self.values[Py(game, m[1].strip())] = float(m[3].replace(",", ""))

    def grpc(self, phases: list[Grpc]) -> None:
        log("building cardhouse-bench")
        self.sh(["cargo", "build", "--quiet", "--release", "-p", "cardhouse-server", "--bin",
                 "cardhouse-bench"], "build cardhouse-bench")
        rounds, seconds = ("1", "0.5") if self.quick else ("5", "3")
        cmd = [str(ROOT / "target/release/cardhouse-bench"), "--rounds", rounds, "--seconds", seconds]
        for p in phases:
            for f in p.flags:
                if f not in cmd:
                    cmd.append(f)
        url = self.args.postgres
        if any(p.postgres for p in phases):
            why = postgres_missing(url)
            if why:
                for p in phases:
                    if p.postgres:
                        self.failed[p] = why
            else:
                cmd += ["--postgres", url]
        out = self.sh(cmd, "gRPC")
        rates: dict[str, dict[str, float]] = {}
        cpu: dict[str, dict[str, float]] = {}
        for line in out.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("|") or cells[0] in ("rpc", "phase") or cells[0].startswith("---"):
                continue
            num = lambda c: float(c.split()[0].rstrip("%")) if c not in ("-", "") else 0.0
            if len(cells) == 7:
                rates[cells[0]] = {"rps": num(cells[2]), "p50": num(cells[3]),
                                   "p99": num(cells[4]), "steps": num(cells[6])}
            elif len(cells) == 11:
                cpu[cells[0]] = {"server_us": num(cells[9]), "pg_us": num(cells[10])}
        for p in phases:
            if p in self.failed:
                continue
            names = [n for n in rates if n.startswith(p.phase)]
            if not names:
                self.failed[p] = f"cardhouse-bench printed no phase `{p.phase}`"
                continue
            self.values[p] = rates[names[0]] | cpu.get(names[0], {})

    def get(self, source: object) -> object:
        if source in self.values:
            return self.values[source]
        raise Missing(self.failed.get(source, f"not measured: {source}"))


def postgres_missing(url: str | None) -> str | None:
    """Why PostgreSQL cannot be measured here, or None if its port answers."""
    if not url:
        return "not measured (run without PostgreSQL: `--postgres URL`)"
    u = urlparse(url)
    try:
        socket.create_connection((u.hostname or "127.0.0.1", u.port or 5432), timeout=3).close()
    except OSError as e:
        return f"not measured: no PostgreSQL at {u.hostname}:{u.port or 5432} ({e.strerror or e})"
    return None


def machine(run: Run, minutes: float) -> str:
    info: dict[str, str] = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        k, _, v = line.partition(":")
        info.setdefault(k.strip(), v.strip())
    cpu = info.get("model name", "unknown CPU")
    if "cpu family" in info:
        cpu += f" (family {info['cpu family']}, model {info.get('model', '?')})"
    git = lambda *a: subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += " with local changes"
    day = time.strftime("%Y-%m-%d", time.gmtime(run.start))
    lo, hi = min(run.loads), max(run.loads)
    mode = "a `--quick` run (short measurements, not figures to quote)" if run.quick else "one run"
    return (
        f"Measured on one machine, {cpu}, {os.cpu_count()} cores, on {day} at commit `{commit}`: "
        f"{mode} of `bash scripts/bench.sh` ({minutes:.0f} min; load average {lo:.1f}-{hi:.1f} "
        f"at the steps' starts and ends)."
    )


def render(run: Run) -> list[str]:
    lines = ["| what | figure | target |", "|---|---|---|"]
    for row in ROWS:
        target = row.target.text
        try:
            text, values = row.figure.make([run.get(s) for s in row.figure.sources])
            if row.target.misses:
                missed = [m for m in row.target.misses(values) if m]
                if not row.target.misses(values):
                    target += ": met"
                elif not missed:
                    target += ": not met"
                else:
                    target += ": not met by " + ", ".join(missed)
        except Missing as e:
            text = str(e)
        lines.append(f"| {row.what} | {text} | {target} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description="The README's benchmark table, in one run.")
    parser.add_argument("--quick", action="store_true",
                        help="every measurement briefly (checks the script; figures not to quote)")
    default_py = ROOT / ".venv/bin/python"
    parser.add_argument("--python", default=os.environ.get(
        "CARDHOUSE_BENCH_PYTHON", str(default_py) if default_py.exists() else "python3"),
                        help="the Python with `cardhouse` installed (default .venv/bin/python)")
    parser.add_argument("--postgres", default=os.environ.get("CARDHOUSE_BENCH_POSTGRES", PG_DEFAULT),
                        help=f"an admin URL for the PostgreSQL rows (default {PG_DEFAULT})")
    parser.add_argument("--no-postgres", dest="postgres", action="store_const", const=None,
                        help="skip the PostgreSQL rows")
    args = parser.parse_args()

    run = Run(args)
    sources: list = []
    for row in ROWS:
        for s in row.figure.sources:
            if s not in sources:
                sources.append(s)
    run.measure(sources)
    minutes = (time.time() - run.start) / 60
    log(f"done in {minutes:.1f} min")
    print(machine(run, minutes))
    print()
    print("\n".join(render(run)))


if __name__ == "__main__":
    main()
