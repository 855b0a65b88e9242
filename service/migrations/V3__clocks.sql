-- cardhouse PostgreSQL store, version 3: clocks and away seats.
--
-- `table_state` is the match's table (cardhouse_server::store::TableRecord, protobuf): its
-- time control, the running clock, the banks, timeouts in a row, who is away and the moves
-- bots played for human seats. NULL for a match without a time control whose seats were
-- never away (every row before this version). A match with a table is written whole at
-- every change (its table changes with each), so the column is always current.
ALTER TABLE matches ADD COLUMN table_state bytea;
-- When the running clock runs out (Unix ms); NULL when no clock runs. Every replica looks
-- for the rows past their deadline a few times a second, so that a match whose replica
-- died still times out on time.
ALTER TABLE matches ADD COLUMN deadline_ms bigint;
CREATE INDEX matches_deadline ON matches (deadline_ms) WHERE deadline_ms IS NOT NULL;
