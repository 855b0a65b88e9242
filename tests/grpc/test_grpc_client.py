"""A Python grpcio client drives a whole match on the real `cardhouse` binary.

Proves that another language can use the protos: the stubs are generated at test time with
grpcio-tools from proto/cardhouse/v1 (nothing generated is committed). The server is started
on port 0 and reports its bound address, so the test never sleeps.

Run: CARDHOUSE_BIN=target/debug/cardhouse pytest tests/grpc (scripts/test-all.sh does this).
"""

from __future__ import annotations

import importlib
import os
import pathlib
import random
import signal
import subprocess
import sys

import grpc
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROTO_DIR = ROOT / "proto"


@pytest.fixture(scope="session")
def stubs(tmp_path_factory):
    """Generates the Python stubs of cardhouse.v1 into a temp dir and imports them."""
    from grpc_tools import protoc

    out = tmp_path_factory.mktemp("stubs")
    well_known = pathlib.Path(protoc.__file__).parent / "_proto"
    protos = sorted(str(p.relative_to(PROTO_DIR)) for p in (PROTO_DIR / "cardhouse" / "v1").glob("*.proto"))
    code = protoc.main(
        ["grpc_tools.protoc", f"-I{PROTO_DIR}", f"-I{well_known}", f"--python_out={out}", f"--grpc_python_out={out}", *protos]
    )
    assert code == 0, "protoc failed"
    # The stubs live in a package named `cardhouse` (from the proto package), as does the
    # engine's Python module: make them regular packages, import them first, and put any
    # already imported `cardhouse` back afterwards.
    (out / "cardhouse" / "__init__.py").touch()
    (out / "cardhouse" / "v1" / "__init__.py").touch()
    saved = {k: v for k, v in sys.modules.items() if k == "cardhouse" or k.startswith("cardhouse.")}
    for k in saved:
        del sys.modules[k]
    sys.path.insert(0, str(out))
    try:
        mods = {
            name: importlib.import_module(f"cardhouse.v1.{name}")
            for name in ("game_pb2", "engine_pb2", "engine_pb2_grpc", "matches_pb2", "matches_pb2_grpc")
        }
    finally:
        sys.path.remove(str(out))
        for k in [k for k in sys.modules if k == "cardhouse" or k.startswith("cardhouse.")]:
            del sys.modules[k]
        sys.modules.update(saved)
    return mods


def _binary() -> str:
    explicit = os.environ.get("CARDHOUSE_BIN")
    if explicit:
        return explicit
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = target / "debug" / "cardhouse"
    if not path.exists():
        pytest.skip(f"build the server first (cargo build -p cardhouse-server); {path} is missing")
    return str(path)


@pytest.fixture()
def server(tmp_path):
    """The `cardhouse` binary on 127.0.0.1:0 with a data dir; yields its address."""
    addr_file = tmp_path / "addr"
    proc = subprocess.Popen(
        [
            _binary(),
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
            str(tmp_path / "data"),
            "--addr-file",
            str(addr_file),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        # The server prints its bound address once it listens (and writes --addr-file).
        line = proc.stdout.readline()
        assert line.startswith("cardhouse listening on "), f"unexpected server output: {line!r}"
        addr = line.rsplit(" ", 1)[1].strip()
        assert addr_file.read_text() == addr
        yield addr
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        assert code == 0, f"server exited with {code} after SIGTERM"


def _auth(token: str):
    return (("authorization", f"Bearer {token}"),)


def test_engine_lists_games(stubs, server):
    engine_pb2, engine_grpc = stubs["engine_pb2"], stubs["engine_pb2_grpc"]
    with grpc.insecure_channel(server) as channel:
        engine = engine_grpc.EngineStub(channel)
        games = engine.ListGames(engine_pb2.ListGamesRequest()).games
        names = [g.info.name for g in games]
        assert "jass" in names
        jass = games[names.index("jass")]
        assert jass.info.num_players == 4
        assert any(spec.name == "scope" for spec in jass.option_specs)
        with pytest.raises(grpc.RpcError) as err:
            engine.DescribeGame(engine_pb2.DescribeGameRequest(game="jass", options={"scope": "forever"}))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "match, deal" in err.value.details()


def test_python_client_drives_a_match_to_the_end(stubs, server):
    game_pb2 = stubs["game_pb2"]
    pb, matches_grpc = stubs["matches_pb2"], stubs["matches_pb2_grpc"]
    rng = random.Random(7)
    with grpc.insecure_channel(server) as channel:
        matches = matches_grpc.MatchesStub(channel)
        created = matches.CreateMatch(
            pb.CreateMatchRequest(
                game="jass",
                options={"scope": "deal"},
                seed=42,
                seats=[pb.SEAT_KIND_HUMAN, pb.SEAT_KIND_RANDOM_BOT, pb.SEAT_KIND_HUMAN, pb.SEAT_KIND_RANDOM_BOT],
            )
        )
        tokens = {t.seat: t.token for t in created.seat_tokens}
        assert sorted(tokens) == [0, 2]
        match_id = created.match_id

        with pytest.raises(grpc.RpcError) as err:
            matches.GetView(pb.GetViewRequest(match_id=match_id))
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED

        moves = 0
        while True:
            public = matches.GetView(pb.GetViewRequest(match_id=match_id), metadata=_auth(created.spectator_token)).view
            assert all(h is None or h == [] for h in _hands(public.view))
            if public.status != pb.MATCH_STATUS_ACTIVE:
                break
            assert public.current_player.kind == game_pb2.PLAYER_KIND_SEAT
            seat = public.current_player.seat
            mine = matches.GetView(pb.GetViewRequest(match_id=match_id), metadata=_auth(tokens[seat])).view
            assert mine.role == pb.ROLE_SEAT and mine.seat == seat
            # A seat sees its own hand and no other.
            hands = _hands(mine.view)
            assert [i for i, h in enumerate(hands) if h is not None] == [seat]
            action = rng.choice(list(mine.legal_actions))
            if moves == 0:
                with pytest.raises(grpc.RpcError) as err:
                    matches.Act(
                        pb.ActRequest(match_id=match_id, action_id=action.id, expected_move_number=mine.move_number + 5),
                        metadata=_auth(tokens[seat]),
                    )
                assert err.value.code() == grpc.StatusCode.ABORTED
            after = matches.Act(
                pb.ActRequest(match_id=match_id, action_id=action.id, expected_move_number=mine.move_number),
                metadata=_auth(tokens[seat]),
            ).view
            assert after.move_number > mine.move_number
            moves += 1

        assert public.status == pb.MATCH_STATUS_FINISHED
        record = matches.GetRecord(pb.GetRecordRequest(match_id=match_id), metadata=_auth(created.owner_token))
        assert len(record.steps) > 36 + moves
        assert record.seed == 42
        returns = list(record.returns)
        assert returns[0] == returns[2] and returns[1] == returns[3]
        assert returns[0] + returns[1] == 0


def _hands(view):
    """The `hands` of a structured view as Python values (None for a hidden hand)."""
    from google.protobuf.json_format import MessageToDict

    return MessageToDict(view)["hands"]


def _spawn(data_dir: pathlib.Path):
    """The `cardhouse` binary on 127.0.0.1:0 over `data_dir`; returns (process, address)."""
    proc = subprocess.Popen(
        [_binary(), "serve", "--listen", "127.0.0.1:0", "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = proc.stdout.readline()
    assert line.startswith("cardhouse listening on "), f"unexpected server output: {line!r}"
    return proc, line.rsplit(" ", 1)[1].strip()


def test_acknowledged_moves_survive_a_crash(stubs, tmp_path):
    """Every acknowledged Act is on disk: SIGKILL (no shutdown) loses none of them."""
    pb, matches_grpc = stubs["matches_pb2"], stubs["matches_pb2_grpc"]
    rng = random.Random(11)
    proc, addr = _spawn(tmp_path / "data")
    try:
        with grpc.insecure_channel(addr) as channel:
            matches = matches_grpc.MatchesStub(channel)
            created = matches.CreateMatch(
                pb.CreateMatchRequest(
                    game="jass",
                    seed=5,
                    seats=[pb.SEAT_KIND_HUMAN, pb.SEAT_KIND_RANDOM_BOT, pb.SEAT_KIND_RANDOM_BOT, pb.SEAT_KIND_RANDOM_BOT],
                )
            )
            auth = _auth(created.seat_tokens[0].token)
            view = matches.GetView(pb.GetViewRequest(match_id=created.match_id), metadata=auth).view
            for _ in range(25):
                action = rng.choice(list(view.legal_actions))
                view = matches.Act(
                    pb.ActRequest(
                        match_id=created.match_id, action_id=action.id, expected_move_number=view.move_number
                    ),
                    metadata=auth,
                ).view
    finally:
        proc.kill()
        proc.wait(timeout=30)

    proc, addr = _spawn(tmp_path / "data")
    try:
        with grpc.insecure_channel(addr) as channel:
            matches = matches_grpc.MatchesStub(channel)
            again = matches.GetView(pb.GetViewRequest(match_id=created.match_id), metadata=auth).view
            assert again.move_number == view.move_number
            assert list(again.legal_actions) == list(view.legal_actions)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def test_zero_is_unambiguous_in_proto3_json(stubs, server):
    """grpcurl prints proto3 JSON (as protobuf's json_format does): seat 0, a current player at
    seat 0 and action id 0 must appear there, not be left out as default values."""
    from google.protobuf import json_format

    pb, matches_grpc = stubs["matches_pb2"], stubs["matches_pb2_grpc"]
    engine_pb2, engine_grpc = stubs["engine_pb2"], stubs["engine_pb2_grpc"]
    with grpc.insecure_channel(server) as channel:
        matches = matches_grpc.MatchesStub(channel)
        created = matches.CreateMatch(
            pb.CreateMatchRequest(game="jass", options={"first_dealer": "3"}, seed=7)
        )
        as_json = json_format.MessageToDict(created)
        assert sorted(t["seat"] for t in as_json["seatTokens"]) == [0, 1, 2, 3]
        token0 = next(t.token for t in created.seat_tokens if t.seat == 0)
        view = matches.GetView(pb.GetViewRequest(match_id=created.match_id), metadata=_auth(token0)).view
        view_json = json_format.MessageToDict(view)
        assert view_json["seat"] == 0
        # Seat 0 is the forehand and chooses the mode first.
        assert view_json["currentPlayer"] == {"kind": "PLAYER_KIND_SEAT", "seat": 0}
        assert all("id" in a for a in view_json["legalActions"])
        spectator = matches.GetView(
            pb.GetViewRequest(match_id=created.match_id), metadata=_auth(created.spectator_token)
        ).view
        assert "seat" not in json_format.MessageToDict(spectator), "only a seat token has a seat"
        # Action id 0 (play 6B) and chance outcome 0 show their id.
        engine = engine_grpc.EngineStub(channel)
        state = engine.NewInitialState(engine_pb2.NewInitialStateRequest(game="jass")).state
        outcomes = engine.LegalActions(engine_pb2.LegalActionsRequest(state=state.state))
        first = json_format.MessageToDict(outcomes)["actions"][0]
        assert first["id"] == 0 and first["text"].startswith("deal 6B")
        assert json_format.MessageToDict(outcomes)["currentPlayer"] == {"kind": "PLAYER_KIND_CHANCE"}


def test_list_games_describes_layouts_and_return_ranges(stubs, server):
    engine_pb2, engine_grpc = stubs["engine_pb2"], stubs["engine_pb2_grpc"]
    with grpc.insecure_channel(server) as channel:
        engine = engine_grpc.EngineStub(channel)
        for game in engine.ListGames(engine_pb2.ListGamesRequest()).games:
            layout = game.observation_layout
            assert layout, game.info.name
            offset = 0
            for part in layout:
                assert part.offset == offset and part.name and part.meaning
                assert part.low <= part.high
                size = 1
                for d in part.shape:
                    size *= d
                offset += size
            assert [offset] == list(game.info.observation_shape)
            assert game.min_return < 0 < game.max_return
        deal = engine.DescribeGame(engine_pb2.DescribeGameRequest(game="jass", options={"scope": "deal"})).game
        assert deal.HasField("max_game_length") and deal.max_game_length == 50
        assert [p.name for p in deal.observation_layout][:2] == ["hand", "trick"]
        match = engine.DescribeGame(engine_pb2.DescribeGameRequest(game="jass")).game
        assert not match.HasField("max_game_length")
        assert (match.min_return, match.max_return) == (-1.0, 1.0)


def test_the_readme_grpcurl_example_acts_with_a_current_move_number(stubs, server):
    """The top README's CreateMatch / Act example, sent as grpcurl would send it."""
    import json
    import re

    from google.protobuf import json_format

    pb, matches_grpc = stubs["matches_pb2"], stubs["matches_pb2_grpc"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    create = re.search(r"-d '(\{.*?\})' \\\s*\n\s*localhost:50051 cardhouse\.v1\.Matches/CreateMatch", readme, re.S)
    act = re.search(r'-d "(\{[^\n]*\})" \\\s*\n\s*localhost:50051 cardhouse\.v1\.Matches/Act', readme)
    assert create and act, "the README's CreateMatch and Act examples"
    act_json = json.loads(act.group(1).replace('\\"', '"').replace("$MATCH", "m"))
    with grpc.insecure_channel(server) as channel:
        matches = matches_grpc.MatchesStub(channel)
        created = matches.CreateMatch(json_format.Parse(create.group(1), pb.CreateMatchRequest()))
        token0 = next(t.token for t in created.seat_tokens if t.seat == 0)
        view = matches.GetView(pb.GetViewRequest(match_id=created.match_id), metadata=_auth(token0)).view
        assert view.move_number == act_json["expected_move_number"]
        assert act_json["action_text"] in [a.text for a in view.legal_actions]
        request = pb.ActRequest(
            match_id=created.match_id,
            action_text=act_json["action_text"],
            expected_move_number=act_json["expected_move_number"],
        )
        after = matches.Act(request, metadata=_auth(token0)).view
        assert after.move_number > view.move_number


def test_the_start_up_log_names_the_address_plainly(tmp_path):
    proc = subprocess.Popen(
        [_binary(), "serve", "--listen", "127.0.0.1:0", "--in-memory"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        addr = proc.stdout.readline().rsplit(" ", 1)[1].strip()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    serving = [line for line in err.splitlines() if "serving cardhouse.v1" in line]
    assert serving and f"addr={addr}" in serving[0], err
    assert "Some(" not in err


# The README's grpcurl example, run as written. grpcurl itself is a Go binary that Debian does
# not package; this stand-in speaks the same command line for unary calls (-plaintext,
# -emit-defaults, -H, -d) and prints protobuf's proto3 JSON, as grpcurl does.
_GRPCURL_SHIM = r'''
import json, os, sys
sys.path.insert(0, os.environ["CARDHOUSE_STUBS"])
import grpc
from google.protobuf import json_format, message_factory
from cardhouse.v1 import engine_pb2, matches_pb2

args = sys.argv[1:]
headers, data, emit, positional = [], "{}", False, []
while args:
    a = args.pop(0)
    if a == "-plaintext":
        continue
    if a == "-emit-defaults":
        emit = True
    elif a == "-H":
        k, v = args.pop(0).split(":", 1)
        headers.append((k.strip().lower(), v.strip()))
    elif a == "-d":
        data = args.pop(0)
    else:
        positional.append(a)
addr, full = positional
service_name, method_name = full.split("/")
for module in (engine_pb2, matches_pb2):
    for service in module.DESCRIPTOR.services_by_name.values():
        if service.full_name == service_name:
            method = service.methods_by_name[method_name]
request_type = message_factory.GetMessageClass(method.input_type)
response_type = message_factory.GetMessageClass(method.output_type)
request = json_format.Parse(data, request_type())
with grpc.insecure_channel(addr) as channel:
    call = channel.unary_unary(
        f"/{service_name}/{method_name}",
        request_serializer=request_type.SerializeToString,
        response_deserializer=response_type.FromString,
    )
    try:
        response = call(request, metadata=headers)
    except grpc.RpcError as e:
        print(f"ERROR:\n  Code: {e.code().name}\n  Message: {e.details()}", file=sys.stderr)
        sys.exit(1)
try:
    text = json_format.MessageToJson(response, indent=2, always_print_fields_with_no_presence=emit)
except TypeError:  # protobuf < 5.26
    text = json_format.MessageToJson(response, indent=2, including_default_value_fields=emit)
print(text)
with open(os.environ["GRPCURL_SHIM_LOG"], "a") as log:
    log.write(json.dumps({"method": full, "response": json.loads(text)}) + "\n")
'''


def test_readme_grpcurl_example_runs_as_written(stubs, server, tmp_path):
    """The README's CreateMatch / GetView / Act lines, with their jq, against the real binary."""
    import json
    import re
    import shutil

    if shutil.which("jq") is None or shutil.which("bash") is None:
        pytest.skip("the README example needs bash and jq")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(
        b for b in re.findall(r"```bash\n(.*?)```", readme, re.S) if "Matches/CreateMatch" in b
    )
    script = block[block.index("CREATED=") :].replace("localhost:50051", server)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "grpcurl"
    shim.write_text(f"#!{sys.executable}\n{_GRPCURL_SHIM}")
    shim.chmod(0o755)
    log = tmp_path / "calls.jsonl"
    env = dict(
        os.environ,
        PATH=f"{bin_dir}:{os.environ['PATH']}",
        CARDHOUSE_STUBS=str(pathlib.Path(stubs["matches_pb2"].__file__).parents[2]),
        GRPCURL_SHIM_LOG=str(log),
    )
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert [c["method"].rsplit("/", 1)[1] for c in calls] == ["CreateMatch", "GetView", "Act"]
    created, viewed, acted = (c["response"] for c in calls)
    assert [t["seat"] for t in created["seatTokens"]] == [0, 2]
    view = viewed["view"]
    assert view["moveNumber"] == "36", "the README's move number"
    legal = view["legalActions"]
    assert "trump roses" in [a["text"] for a in legal]
    # Only chance outcomes carry a probability: a seat's actions are {id, text}.
    assert all(set(a) == {"id", "text"} for a in legal), legal
    assert acted["view"]["moveNumber"] == "37"


def test_only_chance_outcomes_carry_a_probability(stubs, server):
    from google.protobuf import json_format

    engine_pb2, engine_grpc = stubs["engine_pb2"], stubs["engine_pb2_grpc"]
    with grpc.insecure_channel(server) as channel:
        engine = engine_grpc.EngineStub(channel)
        state = engine.NewInitialState(engine_pb2.NewInitialStateRequest(game="klaberjass")).state
        chance = engine.LegalActions(engine_pb2.LegalActionsRequest(state=state.state)).actions
        outcomes = [json_format.MessageToDict(a) for a in chance]
        assert all(a["probability"] > 0 for a in outcomes), outcomes
        assert abs(sum(a["probability"] for a in outcomes) - 1.0) < 1e-9
        # A seed resolves every pending chance event: then a seat is to act.
        state = engine.ApplyChance(engine_pb2.ApplyChanceRequest(state=state.state, seed=1)).state
        assert state.current_player.kind == stubs["game_pb2"].PLAYER_KIND_SEAT
        seat_actions = engine.LegalActions(engine_pb2.LegalActionsRequest(state=state.state)).actions
        assert seat_actions
        for a in seat_actions:
            assert set(json_format.MessageToDict(a)) == {"id", "text"}
            # Not on the wire at all: field 3 (probability) is never encoded.
            assert a.SerializeToString() == type(a)(id=a.id, text=a.text).SerializeToString()
