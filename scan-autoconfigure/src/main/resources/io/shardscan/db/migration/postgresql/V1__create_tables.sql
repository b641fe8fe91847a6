-- Shardscan's tables as release 0.1.0 creates them, on PostgreSQL and H2 (which runs this DDL as written).
-- The one copy of this DDL: scan.jdbc.initialize-schema runs every script of this folder on every start (so
-- each is re-runnable: IF NOT EXISTS), and Flyway or Liquibase apply each once. From 0.1.0 on a released
-- script never changes: a schema change is the next V<n>__<what>.sql in every folder, listed in
-- io.shardscan.jdbc.OwnSchema.
CREATE TABLE IF NOT EXISTS scan_lease (
    task       VARCHAR(64)  NOT NULL,
    shard      INT          NOT NULL,
    owner      VARCHAR(128),
    epoch      BIGINT       NOT NULL,
    expires_at TIMESTAMP,
    PRIMARY KEY (task, shard)
);
CREATE TABLE IF NOT EXISTS scan_member (
    task         VARCHAR(64)  NOT NULL,
    node         VARCHAR(128) NOT NULL,
    heartbeat_at TIMESTAMP    NOT NULL,
    counters     VARCHAR(100),
    PRIMARY KEY (task, node)
);
CREATE TABLE IF NOT EXISTS scan_fence (
    task  VARCHAR(64) NOT NULL,
    shard INT         NOT NULL,
    epoch BIGINT      NOT NULL,
    owner VARCHAR(128),
    run_id        BIGINT,
    run_processed BIGINT,
    run_failed    BIGINT,
    run_dead      BIGINT,
    PRIMARY KEY (task, shard)
);
CREATE TABLE IF NOT EXISTS scan_task (
    task       VARCHAR(64)  NOT NULL,
    paused     SMALLINT     NOT NULL,
    changed_by VARCHAR(128),
    changed_at TIMESTAMP,
    run_id         BIGINT,
    run_state      VARCHAR(16),
    run_started_at TIMESTAMP,
    run_started_by VARCHAR(128),
    run_ended_at   TIMESTAMP,
    run_ended_by   VARCHAR(128),
    run_processed  BIGINT,
    run_failed     BIGINT,
    run_dead       BIGINT,
    run_low_id     BIGINT,
    run_high_id    BIGINT,
    run_range_size BIGINT,
    run_cursor     VARCHAR(16),
    PRIMARY KEY (task)
);
CREATE TABLE IF NOT EXISTS scan_endpoint_trip (
    task       VARCHAR(64)  NOT NULL,
    endpoint   VARCHAR(255) NOT NULL,
    tripped_at TIMESTAMP    NOT NULL
);
CREATE INDEX IF NOT EXISTS scan_endpoint_trip_idx ON scan_endpoint_trip (task, endpoint, tripped_at);
CREATE TABLE IF NOT EXISTS scan_endpoint_ban (
    task        VARCHAR(64)  NOT NULL,
    endpoint    VARCHAR(255) NOT NULL,
    banned_from TIMESTAMP    NOT NULL,
    banned_until TIMESTAMP   NOT NULL,
    last_error  VARCHAR(512),
    PRIMARY KEY (task, endpoint)
);
CREATE TABLE IF NOT EXISTS scan_range_cursor (
    task        VARCHAR(64) NOT NULL,
    run_id      BIGINT      NOT NULL,
    next_offset BIGINT      NOT NULL,
    PRIMARY KEY (task, run_id)
);
CREATE TABLE IF NOT EXISTS scan_range (
    task         VARCHAR(64)  NOT NULL,
    run_id       BIGINT       NOT NULL,
    range_start  BIGINT       NOT NULL,
    range_end    BIGINT       NOT NULL,
    position     BIGINT       NOT NULL,
    owner        VARCHAR(128),
    epoch        BIGINT       NOT NULL,
    heartbeat_at TIMESTAMP    NOT NULL,
    moved_at     TIMESTAMP    NOT NULL,
    processed    BIGINT       NOT NULL,
    failed       BIGINT       NOT NULL,
    done         SMALLINT     NOT NULL,
    PRIMARY KEY (task, run_id, range_start)
);
CREATE TABLE IF NOT EXISTS scan_range_failure (
    task      VARCHAR(64)  NOT NULL,
    run_id    BIGINT       NOT NULL,
    row_id    BIGINT       NOT NULL,
    error     VARCHAR(512) NOT NULL,
    attempts  INT          NOT NULL,
    failed_at TIMESTAMP    NOT NULL,
    PRIMARY KEY (task, run_id, row_id)
);
