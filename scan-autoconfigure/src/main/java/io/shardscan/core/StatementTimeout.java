package io.shardscan.core;

import java.time.Duration;

/**
 * A statement of a task's rounds or dispatcher, or of a range task's workers and control thread,
 * that ran past {@link EngineSettings#statementTimeout()} and was cancelled: its table is locked or
 * the database is too slow. It fails what called it as any store failure does (a round's rows stay
 * pending and the shard goes on; a range runs again from its last committed position); the database
 * was reached. The message names the statement's kind, the table, the timeout, what to do and what
 * happens to the work.
 */
final class StatementTimeout extends RuntimeException {

    /** What becomes of a round whose statement was cancelled. */
    static final String ROUND_GOES_ON = "Its rows stay pending and the shard goes on";

    private final String kind;

    StatementTimeout(String kind, String table, Duration timeout, Throwable cause) {
        this(kind, table, timeout, ROUND_GOES_ON, cause);
    }

    /** @param then what becomes of the work the statement was part of, one sentence */
    StatementTimeout(String kind, String table, Duration timeout, String then, Throwable cause) {
        super(describe(kind, table, timeout) + ". " + then, cause);
        this.kind = kind;
    }

    /** What the statement did: {@code fetch}, {@code probe}, {@code write-back}, {@code page read}… */
    String kind() {
        return kind;
    }

    static String describe(String kind, String table, Duration timeout) {
        return "a " + kind + " on " + table + " was cancelled after " + timeout + " (twice scan.lease-ttl): "
                + table + " is locked or the database is too slow; find the statement that holds the lock"
                + " (PostgreSQL: pg_stat_activity and pg_locks; MySQL/MariaDB: SHOW PROCESSLIST,"
                + " information_schema.innodb_trx) and end it or its transaction, or raise scan.lease-ttl when"
                + " such a statement may take this long";
    }
}
