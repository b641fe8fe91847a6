-- The firing record of a task's schedule (scan.tasks.<name>.schedule), next to its run in scan_task: when
-- the last firing was handled (UTC, so nodes in other zones compare alike), by which node, and how
-- (SEEN: the schedule's first sight; STARTED: it started the next run; SKIPPED: the run still ran).
-- On MySQL and MariaDB; re-runnable, as scan.jdbc.initialize-schema runs it on every start: MySQL has no
-- ADD COLUMN IF NOT EXISTS, so the statement is chosen by whether the column is there.
SET @scan_add_firings = IF(
    (SELECT COUNT(*) FROM information_schema.columns
        WHERE table_schema = DATABASE() AND table_name = 'scan_task' AND column_name = 'run_fired_at') = 0,
    'ALTER TABLE scan_task ADD COLUMN run_fired_at DATETIME(3), ADD COLUMN run_fired_by VARCHAR(128), ADD COLUMN run_firing VARCHAR(16)',
    'SELECT 1');
PREPARE scan_add_firings FROM @scan_add_firings;
EXECUTE scan_add_firings;
DEALLOCATE PREPARE scan_add_firings;
