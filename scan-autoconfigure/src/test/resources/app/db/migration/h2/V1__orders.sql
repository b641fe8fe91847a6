-- The application's own first migration, as the README's H2 table and index for a task of 4 shards.
CREATE TABLE tb_order (
    order_id    BIGINT PRIMARY KEY,
    user_id     BIGINT NOT NULL,
    status      SMALLINT NOT NULL DEFAULT 0,
    retry_count INT NOT NULL DEFAULT 0,
    updated_at  TIMESTAMP NOT NULL,
    last_error  VARCHAR(512),
    scan_shard  INT GENERATED ALWAYS AS (MOD(MOD(user_id, 4) + 4, 4))
);
CREATE INDEX tb_order_scan_idx ON tb_order (status, scan_shard, retry_count, order_id);
