package io.shardscan.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Checks that Shardscan's own tables exist with the columns it uses: {@code scan_fence} and
 * {@code scan_task} for every store, {@code scan_lease} and {@code scan_member} for the JDBC
 * coordinator. Stateless.
 */
public final class OwnTables {

    private static final Set<String> FENCE = Set.of("task", "shard", "epoch", "owner", "shards");
    private static final Set<String> TASK = Set.of("task", "paused", "changed_by", "changed_at");
    private static final Map<String, Set<String>> COORDINATOR = Map.of(
            "scan_lease", Set.of("task", "shard", "owner", "epoch", "expires_at"),
            "scan_member", Set.of("task", "node", "heartbeat_at", "counters"));
    private static final Map<String, Set<String>> ENDPOINTS = Map.of(
            "scan_endpoint_trip", Set.of("task", "endpoint", "tripped_at"),
            "scan_endpoint_ban", Set.of("task", "endpoint", "banned_from", "banned_until", "last_error"));

    private static final Map<String, Set<String>> RANGES = Map.of(
            "scan_range_cursor", Set.of("task", "run_id", "next_offset"),
            "scan_range",
                    Set.of(
                            "task",
                            "run_id",
                            "range_start",
                            "range_end",
                            "position",
                            "owner",
                            "epoch",
                            "heartbeat_at",
                            "moved_at",
                            "processed",
                            "failed",
                            "done"),
            "scan_range_failure", Set.of("task", "run_id", "row_id", "error", "attempts", "failed_at"));

    /**
     * The run columns by table, each with its type ({@code TIMESTAMP} is the dialect's timestamp): the
     * runs of status-column and range tasks alike, a range run's ids and range size included, and the
     * firing record of a scheduled task's (added by {@code V2__schedule_firings.sql}).
     */
    private static final Map<String, Map<String, String>> RUNS = Map.of(
            "scan_task",
            Map.ofEntries(
                    Map.entry("run_id", "BIGINT"),
                    Map.entry("run_state", "VARCHAR(16)"),
                    Map.entry("run_started_at", "TIMESTAMP"),
                    Map.entry("run_started_by", "VARCHAR(128)"),
                    Map.entry("run_ended_at", "TIMESTAMP"),
                    Map.entry("run_ended_by", "VARCHAR(128)"),
                    Map.entry("run_processed", "BIGINT"),
                    Map.entry("run_failed", "BIGINT"),
                    Map.entry("run_dead", "BIGINT"),
                    Map.entry("run_low_id", "BIGINT"),
                    Map.entry("run_high_id", "BIGINT"),
                    Map.entry("run_range_size", "BIGINT"),
                    Map.entry("run_cursor", "VARCHAR(16)"),
                    Map.entry("run_fired_at", "TIMESTAMP"),
                    Map.entry("run_fired_by", "VARCHAR(128)"),
                    Map.entry("run_firing", "VARCHAR(16)")),
            "scan_fence",
            Map.of("run_id", "BIGINT", "run_processed", "BIGINT", "run_failed", "BIGINT", "run_dead", "BIGINT"));

    /** Columns added to a table after its first release, each with its type, by table. */
    private static final Map<String, Map<String, String>> ADDED_COLUMNS = addedColumns();

    private OwnTables() {}

    private static Map<String, Map<String, String>> addedColumns() {
        Map<String, Map<String, String>> added = new java.util.HashMap<>(RUNS);
        added.put("scan_member", Map.of("counters", "VARCHAR(100)"));
        // V3__fence_shards.sql; the run columns are added to scan_fence's too
        Map<String, String> fence = new java.util.HashMap<>(RUNS.get("scan_fence"));
        fence.put("shards", "INT");
        added.put("scan_fence", Map.copyOf(fence));
        return Map.copyOf(added);
    }

    /**
     * The missing tables and columns, each with the script that creates them.
     *
     * @param coordinatorTables whether the JDBC coordinator's lease and member tables are needed too
     * @return one message per missing table or column, naming {@code scan.jdbc.initialize-schema}
     *     and the script; empty when all are there
     */
    public static List<String> problems(DataSource dataSource, boolean coordinatorTables) {
        return problems(dataSource, coordinatorTables, false);
    }

    /**
     * The same, and with {@code endpointTables} the tables of {@link JdbcEndpointBans}, needed when
     * a task has an endpoint column and its blacklist lives in the database.
     */
    public static List<String> problems(DataSource dataSource, boolean coordinatorTables, boolean endpointTables) {
        return problems(dataSource, coordinatorTables, endpointTables, false);
    }

    /**
     * The same, and with {@code runColumns} the run columns of {@code scan_task} and {@code scan_fence},
     * needed when a task keeps runs ({@code scan.tasks.<name>.run} other than forever); a missing one
     * is named with the {@code ALTER TABLE} that adds it.
     */
    public static List<String> problems(
            DataSource dataSource, boolean coordinatorTables, boolean endpointTables, boolean runColumns) {
        return problems(dataSource, coordinatorTables, endpointTables, runColumns, false);
    }

    /**
     * The same, and with {@code rangeTables} the tables of range tasks' cursors, progress and failures
     * ({@code scan_range_cursor}, {@code scan_range}, {@code scan_range_failure}) and the run columns
     * of {@code scan_task}, which keep their runs, needed when a task runs in range mode.
     */
    public static List<String> problems(
            DataSource dataSource,
            boolean coordinatorTables,
            boolean endpointTables,
            boolean runColumns,
            boolean rangeTables) {
        return problems(
                dataSource, SqlDialect.detect(dataSource), coordinatorTables, endpointTables, runColumns, rangeTables);
    }

    /** The same on a database of {@code dialect}, whose scripts the messages name. */
    public static List<String> problems(
            DataSource dataSource,
            SqlDialect dialect,
            boolean coordinatorTables,
            boolean endpointTables,
            boolean runColumns,
            boolean rangeTables) {
        Map<String, Set<String>> needed = new LinkedHashMap<>();
        if (rangeTables) {
            for (String table : List.of("scan_range_cursor", "scan_range", "scan_range_failure")) {
                needed.put(table, RANGES.get(table));
            }
        }
        if (endpointTables) {
            needed.put("scan_endpoint_trip", ENDPOINTS.get("scan_endpoint_trip"));
            needed.put("scan_endpoint_ban", ENDPOINTS.get("scan_endpoint_ban"));
        }
        if (coordinatorTables) {
            needed.put("scan_lease", COORDINATOR.get("scan_lease"));
            needed.put("scan_member", COORDINATOR.get("scan_member"));
        }
        needed.put(
                "scan_fence", runColumns ? union(FENCE, RUNS.get("scan_fence").keySet()) : FENCE);
        needed.put(
                "scan_task",
                runColumns || rangeTables ? union(TASK, RUNS.get("scan_task").keySet()) : TASK);
        List<String> problems = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            String fix = ": set scan.jdbc.initialize-schema=always (the default, embedded, creates Shardscan's"
                    + " tables on embedded databases only), or scan.jdbc.flyway.enabled=true to migrate them with"
                    + " Flyway, or include io/shardscan/db/changelog/shardscan.yaml in your Liquibase changelog, or"
                    + " apply the scripts in " + OwnSchema.folder(dialect) + " from the scan-autoconfigure jar with"
                    + " your migration tool";
            needed.forEach((table, columns) -> {
                List<String> present = columns(metaData, dialect, table);
                // a user who never set up a blacklist needs to know why this table is asked for
                String why = ENDPOINTS.containsKey(table)
                        ? " (it holds the endpoint blacklist of tasks with an endpoint-column when no Redis is"
                                + " configured)"
                        : "";
                if (present.isEmpty()) {
                    problems.add("Shardscan's table " + table + " does not exist" + why + fix);
                    return;
                }
                List<String> missing = columns.stream()
                        .filter(c -> !present.contains(c))
                        .sorted()
                        .toList();
                if (!missing.isEmpty()) {
                    problems.add("Shardscan's table " + table + " lacks column " + String.join(", ", missing)
                            + " (an older schema)" + why + fix + addColumns(table, missing, dialect));
                }
            });
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read Shardscan's tables: " + e.getMessage(), e);
        }
        return problems;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new java.util.HashSet<>(a);
        all.addAll(b);
        return all;
    }

    /**
     * The statements that add the missing columns of a table from before they were added (runs, member
     * counters); empty for other columns.
     */
    private static String addColumns(String table, List<String> missing, SqlDialect dialect) {
        Map<String, String> types = ADDED_COLUMNS.getOrDefault(table, Map.of());
        List<String> statements = missing.stream()
                .filter(types::containsKey)
                .map(c -> "ALTER TABLE " + table + " ADD COLUMN " + c + " "
                        + types.get(c).replace("TIMESTAMP", dialect.timestampType())
                        + ";")
                .toList();
        return statements.isEmpty() ? "" : "; or add them: " + String.join(" ", statements);
    }

    /** The lower-case column names of a table in the connection's schema, empty when it is missing. */
    private static List<String> columns(DatabaseMetaData metaData, SqlDialect dialect, String table) {
        try {
            MetadataScope scope = MetadataScope.of(dialect, metaData.getConnection(), null, false);
            for (String spelling : List.of(table, table.toUpperCase(Locale.ROOT))) {
                List<String> columns = new ArrayList<>();
                try (ResultSet rs = metaData.getColumns(scope.catalog(), scope.schema(), spelling, null)) {
                    while (rs.next()) {
                        columns.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
                    }
                }
                if (!columns.isEmpty()) {
                    return columns;
                }
            }
            return List.of();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the columns of " + table + ": " + e.getMessage(), e);
        }
    }
}
