-- The shard count of the node that raised each fence (scan.tasks.<name>.shards), so that while a cluster
-- changes shards from N to a multiple of N, a shard of the larger count is fenced only once its parent's
-- fence is that count's. On PostgreSQL and H2; re-runnable, as scan.jdbc.initialize-schema runs it on every start.
ALTER TABLE scan_fence ADD COLUMN IF NOT EXISTS shards INT;
