package io.shardscan.core;

import java.time.Duration;

/**
 * A statement of a task's rounds or dispatcher that ran past {@link EngineSettings#statementTimeout()}
 * and was cancelled: its table is locked or the database is too slow. It fails what called it as any
 * store failure does (a round's rows stay pending and the shard goes on); the database was reached.
 * The message names the statement's kind, the table, the timeout and what to do.
 */
final class StatementTimeout extends RuntimeException {

    private final String kind;

    StatementTimeout(String kind, String table, Duration timeout, Throwable cause) {
        super(describe(kind, table, timeout), cause);
        this.kind = kind;
    }

    /** What the statement did: {@code fetch}, {@code probe}, {@code write-back}… */
    String kind() {
        return kind;
    }

    static String describe(String kind, String table, Duration timeout) {
        return "a " + kind + " on " + table + " was cancelled after " + timeout + " (twice scan.lease-ttl): "
                + table + " is locked or the database is too slow; find the statement that holds the lock"
                + " (PostgreSQL: pg_stat_activity and pg_locks; MySQL/MariaDB: SHOW PROCESSLIST,"
                + " information_schema.innodb_trx) and end it or its transaction, or raise scan.lease-ttl when"
                + " such a statement may take this long. Its rows stay pending and the shard goes on";
    }
}
