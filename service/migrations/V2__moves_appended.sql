-- cardhouse PostgreSQL store, version 2: a change that is only actions appends them.
--
-- `state` now holds the engine's state bytes as of the match's last snapshot (its creation,
-- its end, and every 128 moves or so), and `tail` the actions applied since, 4 bytes each
-- (unsigned, big-endian): the match is `state` with `tail`'s actions appended to its
-- history. Such a change writes and logs a few bytes whatever the history's length (the
-- whole state was rewritten before, about 1 KB for a Jass match, past the size at which
-- PostgreSQL compresses and moves a value out of its row); a snapshot rewrites `state` and
-- empties `tail`. Rows of version 1 have an empty tail: they mean what they meant.
ALTER TABLE matches ADD COLUMN tail bytea NOT NULL DEFAULT '\x';
