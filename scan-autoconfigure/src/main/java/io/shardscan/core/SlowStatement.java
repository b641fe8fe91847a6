package io.shardscan.core;

import java.time.Duration;

/**
 * A statement of a task's rounds that has been running longer than {@code scan.lease-ttl}: the
 * database is slow or the table is locked, and the round (or the dispatcher) waits for it. The
 * other tasks keep their leases meanwhile; this task's shard makes no progress.
 *
 * @param kind what the statement does: {@code fetch}, {@code probe}, {@code write-back},
 *     {@code fence}, {@code held keys}, {@code archive} or {@code pause read}
 * @param table the task's table
 * @param running how long it has been running so far
 */
public record SlowStatement(String kind, String table, Duration running) {

    /** One sentence for a log line or a health detail: what waits, how long, and what to check. */
    public String describe(Duration leaseTtl) {
        return "a " + kind + " on " + table + " has been running for " + running.toSeconds()
                + " s, longer than scan.lease-ttl (" + leaseTtl + "): the database is slow or " + table
                + " is locked; find the statement that holds the lock (PostgreSQL: pg_stat_activity and pg_locks;"
                + " MySQL/MariaDB: SHOW PROCESSLIST, information_schema.innodb_trx) and end it or its"
                + " transaction. Other tasks keep their leases meanwhile";
    }
}
