-- the application's own schema, as its team writes it
CREATE TABLE outbox_event (
    event_id    BIGINT PRIMARY KEY,
    account_id  UUID NOT NULL,
    payload     JSONB NOT NULL,
    status      SMALLINT NOT NULL DEFAULT 0,
    retry_count INT NOT NULL DEFAULT 0,
    updated_at  TIMESTAMP NOT NULL DEFAULT (NOW() AT TIME ZONE 'UTC'),
    last_error  VARCHAR(512)
);

CREATE TABLE delivery (
    event_id   BIGINT PRIMARY KEY,
    account_id UUID NOT NULL,
    node       VARCHAR(128) NOT NULL,
    payload    TEXT NOT NULL
);
