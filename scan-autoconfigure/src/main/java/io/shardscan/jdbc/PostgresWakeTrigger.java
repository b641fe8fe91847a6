package io.shardscan.jdbc;

import io.shardscan.core.task.TaskDefinition;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The insert trigger of a task with {@code wake-on-insert} on PostgreSQL: each pending row inserted,
 * by any application, notifies {@value PostgresWakeChannel#CHANNEL} with its task and shard, as
 * {@link PostgresWakeChannel} publishes; PostgreSQL sends one notification per distinct shard of a
 * transaction. Shardscan never creates it: the startup check prints its DDL when it is missing.
 */
public final class PostgresWakeTrigger {

    /** The trigger runs on PostgreSQL alone, so its function spells a row's shard as PostgreSQL's dialect does. */
    private static final SqlDialect POSTGRESQL =
            java.util.Objects.requireNonNull(SqlDialect.forDriver(DatabaseDriver.POSTGRESQL));

    private PostgresWakeTrigger() {}

    /** The trigger's and its function's name: {@code scan_wake_<task>}, cut to PostgreSQL's 63 characters. */
    public static String name(TaskDefinition task) {
        String name = "scan_wake_" + task.name().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        return name.length() > 63 ? name.substring(0, 63) : name;
    }

    /** The statements that create the function and the trigger. */
    public static List<String> ddl(TaskDefinition task) {
        String name = name(task);
        return List.of(
                "CREATE OR REPLACE FUNCTION " + name + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " PERFORM pg_notify('" + PostgresWakeChannel.CHANNEL + "', '" + task.name() + ":' || "
                        + POSTGRESQL.shardOf(task, "NEW." + task.columns().shardKey())
                        + "); RETURN NULL; END $$",
                "CREATE TRIGGER " + name + " AFTER INSERT ON " + task.table() + " FOR EACH ROW WHEN (NEW."
                        + task.columns().status() + " = " + task.statuses().pending() + ") EXECUTE PROCEDURE " + name
                        + "()");
    }

    /**
     * The startup check of a task with {@code wake-on-insert}: nothing when its trigger exists, else a
     * warning with the DDL to run.
     *
     * @return the warning, or {@code null} when the trigger exists
     */
    public static @Nullable String missing(DataSource dataSource, TaskDefinition task) {
        Integer found = new JdbcTemplate(dataSource)
                .queryForObject(
                        "SELECT COUNT(*) FROM pg_trigger WHERE tgname = ? AND NOT tgisinternal",
                        Integer.class,
                        name(task));
        if (found != null && found > 0) {
            return null;
        }
        return "scan.tasks." + task.name() + ".wake-on-insert is true, but " + task.table() + " has no trigger "
                + name(task) + ", so rows other applications insert wait for the tier-0 poll. Shardscan does not"
                + " create it; run:\n" + String.join(";\n", ddl(task)) + ";";
    }
}
