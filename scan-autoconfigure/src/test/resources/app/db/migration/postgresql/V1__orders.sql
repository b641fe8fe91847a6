-- The application's own first migration, as the README's PostgreSQL table and index for a task of 4 shards.
CREATE TABLE tb_order (
    order_id    BIGINT PRIMARY KEY,
    user_id     BIGINT NOT NULL,
    status      SMALLINT NOT NULL DEFAULT 0,
    retry_count INT NOT NULL DEFAULT 0,
    updated_at  TIMESTAMP NOT NULL,
    last_error  VARCHAR(512)
);
CREATE INDEX tb_order_scan_idx ON tb_order (MOD(MOD(user_id, 4) + 4, 4), order_id) WHERE status = 0;
CREATE INDEX tb_order_retry_idx ON tb_order (MOD(MOD(user_id, 4) + 4, 4), order_id) WHERE status = 0 AND retry_count > 0;
