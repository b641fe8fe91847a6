CREATE TABLE IF NOT EXISTS scan_lease (
    task       VARCHAR(64)  NOT NULL,
    shard      INT          NOT NULL,
    owner      VARCHAR(128),
    epoch      BIGINT       NOT NULL,
    expires_at DATETIME(3),
    PRIMARY KEY (task, shard)
);
CREATE TABLE IF NOT EXISTS scan_member (
    task         VARCHAR(64)  NOT NULL,
    node         VARCHAR(128) NOT NULL,
    heartbeat_at DATETIME(3)    NOT NULL,
    PRIMARY KEY (task, node)
);
CREATE TABLE IF NOT EXISTS scan_fence (
    task  VARCHAR(64) NOT NULL,
    shard INT         NOT NULL,
    epoch BIGINT      NOT NULL,
    PRIMARY KEY (task, shard)
);
