-- The shard count of the node that raised each fence (scan.tasks.<name>.shards), so that while a cluster
-- changes shards from N to a multiple of N, a shard of the larger count is fenced only once its parent's
-- fence is that count's. On MySQL and MariaDB; re-runnable, as scan.jdbc.initialize-schema runs it on every
-- start: MySQL has no ADD COLUMN IF NOT EXISTS, so the statement is chosen by whether the column is there.
SET @scan_add_fence_shards = IF(
    (SELECT COUNT(*) FROM information_schema.columns
        WHERE table_schema = DATABASE() AND table_name = 'scan_fence' AND column_name = 'shards') = 0,
    'ALTER TABLE scan_fence ADD COLUMN shards INT',
    'SELECT 1');
PREPARE scan_add_fence_shards FROM @scan_add_fence_shards;
EXECUTE scan_add_fence_shards;
DEALLOCATE PREPARE scan_add_fence_shards;
