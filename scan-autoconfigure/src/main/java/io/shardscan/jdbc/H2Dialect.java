package io.shardscan.jdbc;

import io.shardscan.core.task.TaskDefinition;
import java.util.ArrayList;
import java.util.List;

/** H2: a generated shard column, as on MySQL. */
final class H2Dialect extends GeneratedShardColumnDialect {

    @Override
    public String name() {
        return "h2";
    }

    /** PostgreSQL's: H2 runs that DDL as written, so one copy serves both. */
    @Override
    public String migrationFolder() {
        return "postgresql";
    }

    @Override
    protected String shareLock() {
        // H2 has no shared row lock; an exclusive one serializes this node's write-backs of a shard
        return " FOR UPDATE";
    }

    @Override
    protected String insertUnlessPresent(String table, String columns, String values) {
        // H2 knows ON CONFLICT only in its PostgreSQL mode; the caller checks first and catches the
        // duplicate key of a race, which H2 does not log
        return "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ")";
    }

    @Override
    protected String nowPlusMillis() {
        return "DATEADD(MILLISECOND, ?, LOCALTIMESTAMP)";
    }

    @Override
    protected String now() {
        return "LOCALTIMESTAMP";
    }

    /**
     * For a zone-less column, the session's local time less the session's offset: H2 casts
     * {@code CURRENT_TIMESTAMP AT TIME ZONE 'UTC'} to a {@code TIMESTAMP} in the session's zone again.
     */
    @Override
    protected String rowClock(boolean zoned) {
        return zoned
                ? "CURRENT_TIMESTAMP"
                : "DATEADD(SECOND, -(EXTRACT(TIMEZONE_HOUR FROM CURRENT_TIMESTAMP) * 3600"
                        + " + EXTRACT(TIMEZONE_MINUTE FROM CURRENT_TIMESTAMP) * 60), LOCALTIMESTAMP)";
    }

    @Override
    protected String rowClockMinus(boolean zoned, long millis) {
        return millis == 0 ? rowClock(zoned) : "DATEADD(MILLISECOND, " + (-millis) + ", " + rowClock(zoned) + ")";
    }

    @Override
    protected String textKeyHash(String key) {
        // a BINARY(4) casts to INT big-endian, signed: the mask makes it unsigned
        return "BITAND(CAST(CAST(SUBSTRING(HASH('MD5', CAST(" + key + " AS VARCHAR)) FROM 1 FOR 4) AS INT) AS BIGINT),"
                + " 4294967295)";
    }

    @Override
    protected String generatedColumn(TaskDefinition task) {
        return "INT GENERATED ALWAYS AS (" + shardOf(task, task.columns().shardKey()) + ")";
    }

    @Override
    protected String redefineShardColumn(TaskDefinition task) {
        return "ALTER TABLE " + task.table() + " ALTER COLUMN " + task.columns().shard() + " " + generatedColumn(task);
    }

    /**
     * H2 has no {@code CREATE TABLE ... LIKE}: the columns of an empty copy (generated ones become
     * plain columns, filled from the scanned table), then the primary key.
     */
    @Override
    protected List<String> archiveTableStatements(TaskDefinition task, String archiveTable) {
        List<String> statements = new ArrayList<>();
        statements.add("CREATE TABLE " + archiveTable + " AS SELECT * FROM " + task.table() + " WITH NO DATA");
        statements.addAll(addPrimaryKeyStatements(archiveTable, task.columns().id()));
        return statements;
    }

    @Override
    protected List<String> addPrimaryKeyStatements(String table, String idColumn) {
        // H2 adds a primary key only to a column that is NOT NULL already
        return List.of(
                "ALTER TABLE " + table + " ALTER COLUMN " + idColumn + " SET NOT NULL",
                "ALTER TABLE " + table + " ADD PRIMARY KEY (" + idColumn + ")");
    }
}
