-- The firing record of a task's schedule (scan.tasks.<name>.schedule), next to its run in scan_task: when
-- the last firing was handled (UTC, so nodes in other zones compare alike), by which node, and how
-- (SEEN: the schedule's first sight; STARTED: it started the next run; SKIPPED: the run still ran).
-- On PostgreSQL and H2; re-runnable, as scan.jdbc.initialize-schema runs it on every start.
ALTER TABLE scan_task ADD COLUMN IF NOT EXISTS run_fired_at TIMESTAMP;
ALTER TABLE scan_task ADD COLUMN IF NOT EXISTS run_fired_by VARCHAR(128);
ALTER TABLE scan_task ADD COLUMN IF NOT EXISTS run_firing VARCHAR(16);
