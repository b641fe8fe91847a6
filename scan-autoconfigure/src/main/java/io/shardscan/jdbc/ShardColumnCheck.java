package io.shardscan.jdbc;

import io.shardscan.core.task.TaskDefinition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Whether a generated shard column gives pending rows the shards 0..N-1 that the task's N shards
 * fetch. The fetch reads {@code scan_shard = ?} for those N shards only, so a row the column puts
 * in shard N or above, or below 0, is never fetched: it stays pending, without an error.
 *
 * <p>The column's generation expression is read from {@code INFORMATION_SCHEMA.COLUMNS} and its
 * modulus taken from it: a column of more shards than the task's fails startup, one of fewer is
 * warned (its last shards stay empty, no row is lost), the plain {@code MOD(key, N)} of earlier
 * builds is warned once a pending row has a negative shard. When the expression cannot be read or
 * is not of these forms (the column is filled by a trigger, or computed otherwise), the pending rows
 * are probed through the index instead: one outside 0..N-1 fails startup, a negative one is warned.
 */
final class ShardColumnCheck {

    /**
     * {@code MOD(MOD(key, N) + N, N)} ({@link SchemaDdl#shardOf}) and the plain {@code MOD(key, N)},
     * as the databases print them back once spaces, quotes and parentheses are gone: H2 as written
     * ({@code modmoduser_id,64+64,64}), MariaDB with the operator ({@code user_idmod64+64mod64}),
     * MySQL with {@code %}.
     */
    private static final String FULL =
            "(?:modmod%1$s,(\\d+)\\+(\\d+),(\\d+)|%1$s(?:mod|%%)(\\d+)\\+(\\d+)(?:mod|%%)(\\d+))";

    private static final String PLAIN = "(?:mod%1$s,(\\d+)|%1$s(?:mod|%%)(\\d+))";

    private ShardColumnCheck() {}

    /**
     * What the check found: problems fail startup, warnings are logged; each names the table, the
     * column, the task's {@code shards} and both fixes.
     */
    record Found(List<String> problems, List<String> warnings) {

        static final Found NOTHING = new Found(List.of(), List.of());

        static Found problem(String problem) {
            return new Found(List.of(problem), List.of());
        }

        static Found warning(String warning) {
            return new Found(List.of(), List.of(warning));
        }
    }

    /** The modulus a generation expression applies to the shard key, and whether it is the plain {@code MOD}. */
    record Modulus(int shards, boolean plain) {}

    /** Checks the shard column of a task whose table has one; nothing for a table without. */
    static Found check(
            Connection connection, GeneratedShardColumnDialect dialect, TaskDefinition task, TableNames names)
            throws SQLException {
        String column = names.shardColumn();
        if (column == null) {
            return Found.NOTHING;
        }
        String expression = generationExpression(connection, names, column);
        Modulus modulus = expression == null ? null : modulus(expression, names.shardKey());
        int shards = task.shards();
        if (modulus == null) {
            return probe(connection, dialect, task, names, column, expression);
        }
        String generated = "shard column " + task.columns().shard() + " of table " + task.table() + " is generated as "
                + expression;
        String property = "scan.tasks." + task.name() + ".shards";
        String fixes = " Set " + property + "=" + modulus.shards() + ", or give the column the task's " + shards
                + " shards:\n  " + dialect.redefineShardColumn(task);
        if (modulus.shards() > shards) {
            return Found.problem(generated + ", which gives rows the shards 0.." + (modulus.shards() - 1) + ", but "
                    + property + " is " + shards + ": pending rows whose "
                    + task.columns().shard() + " is " + shards
                    + " or more are never fetched, so they never run and stay pending without an error." + fixes);
        }
        if (modulus.shards() < shards) {
            return Found.warning(
                    generated + ", which gives rows the shards 0.." + (modulus.shards() - 1) + " only, but "
                            + property + " is " + shards + ": shards " + modulus.shards() + ".." + (shards - 1)
                            + " stay empty (no row is lost), and their owners fetch them for nothing." + fixes
                            + "\n(Redefine it with the task paused: the statement rewrites the table and moves keys"
                            + " between shards under running rounds.)");
        }
        return modulus.plain() && anyPending(connection, dialect, task, names, column, " < 0")
                ? Found.warning(plainMod(dialect, task))
                : Found.NOTHING;
    }

    /**
     * The modulus of a generation expression of {@code shardKey}, or {@code null} when it is not
     * {@code MOD(MOD(key, N) + N, N)} with one N or the plain {@code MOD(key, N)}.
     */
    static @Nullable Modulus modulus(String expression, String shardKey) {
        String bare = bare(expression);
        String key = Pattern.quote(bare(shardKey));
        Matcher full = Pattern.compile(String.format(FULL, key)).matcher(bare);
        if (full.matches()) {
            int first = full.group(1) != null ? 1 : 4;
            String n = full.group(first);
            return n.equals(full.group(first + 1)) && n.equals(full.group(first + 2))
                    ? new Modulus(Integer.parseInt(n), false)
                    : null;
        }
        Matcher plain = Pattern.compile(String.format(PLAIN, key)).matcher(bare);
        if (plain.matches()) {
            return new Modulus(Integer.parseInt(plain.group(1) != null ? plain.group(1) : plain.group(2)), true);
        }
        return null;
    }

    /** Lower case, without spaces, quotes and parentheses. */
    private static String bare(String expression) {
        return expression.toLowerCase(Locale.ROOT).replaceAll("[\\s`\"()]", "");
    }

    /** The column's generation expression; {@code null} when it has none or it cannot be read. */
    private static @Nullable String generationExpression(Connection connection, TableNames names, String column) {
        // SCHEMA() is the connection's database on MySQL/MariaDB and its schema on H2
        String sql = "SELECT GENERATION_EXPRESSION FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = "
                + (names.schema() == null ? "SCHEMA()" : "?") + " AND TABLE_NAME = ? AND COLUMN_NAME = ?";
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            int index = 1;
            if (names.schema() != null) {
                statement.setString(index++, names.schema());
            }
            statement.setString(index++, names.table());
            statement.setString(index, column);
            try (ResultSet rs = statement.executeQuery()) {
                String expression = rs.next() ? rs.getString(1) : null;
                return expression == null || expression.isBlank() ? null : expression;
            }
        } catch (SQLException e) {
            return null;
        }
    }

    /** The fallback: a pending row outside 0..N-1 fails startup, a negative one only is warned. */
    private static Found probe(
            Connection connection,
            GeneratedShardColumnDialect dialect,
            TaskDefinition task,
            TableNames names,
            String column,
            @Nullable String expression)
            throws SQLException {
        if (anyPending(connection, dialect, task, names, column, " >= " + task.shards())) {
            return Found.problem("pending rows of table " + task.table() + " have a "
                    + task.columns().shard() + " of "
                    + task.shards() + " or more, outside the shards 0.." + (task.shards() - 1) + " of scan.tasks."
                    + task.name() + ".shards=" + task.shards() + " (the column's expression, "
                    + (expression == null ? "which could not be read" : expression) + ", is not the one Shardscan"
                    + " writes): they are never fetched, so they never run and stay pending without an error."
                    + " Set scan.tasks." + task.name() + ".shards to the column's modulus, or give the column the"
                    + " task's " + task.shards() + " shards:\n  " + dialect.redefineShardColumn(task));
        }
        return anyPending(connection, dialect, task, names, column, " < 0")
                ? Found.warning(plainMod(dialect, task))
                : Found.NOTHING;
    }

    /** Whether a pending row of the task has a shard column value of {@code condition}: one probe of the index. */
    private static boolean anyPending(
            Connection connection,
            GeneratedShardColumnDialect dialect,
            TaskDefinition task,
            TableNames names,
            String column,
            String condition)
            throws SQLException {
        String sql = dialect.limit(
                "SELECT 1 FROM " + names.qualified(dialect) + " WHERE " + dialect.quote(names.status()) + " = "
                        + task.statuses().pending() + names.match().and(dialect) + " AND " + dialect.quote(column)
                        + condition,
                "1");
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            return rs.next();
        }
    }

    /** The warning for a column keyed by the plain {@code MOD(key, N)} of earlier builds. */
    private static String plainMod(GeneratedShardColumnDialect dialect, TaskDefinition task) {
        return plainModWarning(task, List.of(dialect.redefineShardColumn(task)));
    }

    /**
     * The warning for a table that gives a row its shard by the plain {@code MOD(key, N)} of earlier
     * builds (a generated column, or PostgreSQL's index), with the statements that replace it.
     */
    static String plainModWarning(TaskDefinition task, List<String> statements) {
        return "table " + task.table() + " gives a row its shard by a plain MOD("
                + task.columns().shardKey() + ", "
                + task.shards() + "), as earlier builds of Shardscan set it up, which puts a row with a negative "
                + task.columns().shardKey() + " in a negative shard that no node fetches: such rows never run. Run:\n  "
                + String.join(";\n  ", statements) + ";\nthen create any index the index check names";
    }
}
