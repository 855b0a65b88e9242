-- cardhouse PostgreSQL store, version 1: one row per match.
--
-- A row is the whole authoritative match. Every change is one statement that checks and
-- bumps `version`, so two replicas can never both apply a change to the same version.

CREATE TABLE matches (
    -- 32 hex digits.
    id            text PRIMARY KEY,
    -- The parts that never change (cardhouse_server::store::StoredMatch, protobuf, its
    -- state and status fields empty): seed, seat kinds, hashed tokens, bot settings.
    header        bytea   NOT NULL,
    -- The engine's versioned state bytes: game, options, rules version, full history.
    state         bytea   NOT NULL,
    -- Changes committed since creation (0 at creation).
    version       bigint  NOT NULL,
    -- Actions in the history (for operators; the state is the truth).
    move_number   bigint  NOT NULL,
    -- cardhouse.v1.MatchStatus: 1 active, 2 finished, 3 resigned, 4 aborted.
    status        integer NOT NULL,
    resigned_seat integer,
    -- When the match ended (Unix ms; 0 while active): retention.
    ended_at_ms   bigint  NOT NULL DEFAULT 0,
    -- When a change was last committed (Unix ms): abandonment, stalled bots.
    touched_ms    bigint  NOT NULL,
    -- Bots or chance are to move: some replica must play them.
    driving       boolean NOT NULL DEFAULT false
-- Room on each page for the next version of its rows: a change that touches no indexed
-- column is then a heap-only (HOT) update, which writes no index entry.
) WITH (fillfactor = 70);

-- No index covers `state`, `version`, `move_number` or `touched_ms`, which every change
-- writes (the abandonment sweep, once a minute at most, scans the active rows).
CREATE INDEX matches_ended ON matches (ended_at_ms) WHERE status <> 1;
-- The few matches whose bots or chance are to move, for the stalled-bots check each second.
CREATE INDEX matches_driving ON matches (id) WHERE driving;

-- How many matches exist: the exact count `--max-matches` applies to, kept in the same
-- statement as every insert and delete.
CREATE TABLE match_count (
    id integer PRIMARY KEY CHECK (id = 1),
    n  bigint  NOT NULL CHECK (n >= 0)
);
INSERT INTO match_count (id, n) VALUES (1, 0);
