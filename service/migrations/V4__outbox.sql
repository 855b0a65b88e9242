-- cardhouse PostgreSQL store, version 4: the outbox of match events (`--events`).
--
-- A change's events are inserted by the statement that writes the change (one transaction),
-- only for the changes it applied; a replica relays them to NATS JetStream and deletes them
-- once acknowledged. `id` orders them as committed (a match's changes commit one after the
-- other, so its events' ids grow with their sequence numbers). Without `--events` nothing
-- is written here.
CREATE TABLE outbox (
    id bigserial PRIMARY KEY,
    match_id text NOT NULL,
    seq bigint NOT NULL,
    subject text NOT NULL,
    payload bytea NOT NULL,
    UNIQUE (match_id, seq)
);
