package io.shardscan.jdbc;

import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.TaskDefinition;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which column types the store can read and write for each configured column: whole numbers for the
 * id, shard key, status and retry count, a timestamp for the update time and the due time, text
 * for the last error.
 */
final class ColumnTypes {

    static final Set<Integer> WHOLE_NUMBERS =
            Set.of(Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT, Types.NUMERIC, Types.DECIMAL);
    private static final Set<Integer> TIMESTAMPS = Set.of(Types.TIMESTAMP, Types.TIMESTAMP_WITH_TIMEZONE);
    private static final Set<Integer> TEXTS = Set.of(
            Types.VARCHAR,
            Types.CHAR,
            Types.LONGVARCHAR,
            Types.CLOB,
            Types.NVARCHAR,
            Types.NCHAR,
            Types.LONGNVARCHAR,
            Types.NCLOB);

    private static final String WHOLE = "a whole-number type (BIGINT, INTEGER, SMALLINT, or NUMERIC without scale)";
    private static final String TIMESTAMP = "a timestamp type (TIMESTAMP, DATETIME or TIMESTAMP WITH TIME ZONE)";
    private static final String TEXT = "a text type (VARCHAR, TEXT or CLOB)";
    private static final String TEXT_OR_WHOLE = "a text or whole-number type (VARCHAR, BIGINT, INTEGER)";

    private ColumnTypes() {}

    /**
     * The configured columns whose type the store cannot use.
     *
     * @param columns the table's columns by lower-case name, all configured ones present
     * @return one message per column naming the property, the column, its type and what is
     *     supported; empty when all fit
     */
    static List<String> problems(TaskDefinition task, Map<String, TableInspector.ColumnInfo> columns) {
        List<String> problems = new ArrayList<>();
        key(
                problems,
                task,
                column(columns, task.columns().id()),
                "id",
                task.columns().idType());
        if (!task.columns().shardKey().equalsIgnoreCase(task.columns().id())) {
            key(
                    problems,
                    task,
                    column(columns, task.columns().shardKey()),
                    "shard-key",
                    task.columns().shardKeyType());
        }
        check(problems, task, column(columns, task.columns().status()), "status-column", WHOLE_NUMBERS, WHOLE);
        check(problems, task, column(columns, task.columns().retry()), "retry-column", WHOLE_NUMBERS, WHOLE);
        check(problems, task, column(columns, task.columns().updatedAt()), "updated-at-column", TIMESTAMPS, TIMESTAMP);
        check(problems, task, column(columns, task.columns().lastError()), "last-error-column", TEXTS, TEXT);
        if (task.columns().dueAt() != null) {
            check(problems, task, column(columns, task.columns().dueAt()), "due-at-column", TIMESTAMPS, TIMESTAMP);
        }
        if (task.endpointColumn() != null) {
            Set<Integer> keys = new java.util.HashSet<>(TEXTS);
            keys.addAll(WHOLE_NUMBERS);
            check(problems, task, column(columns, task.endpointColumn()), "endpoint-column", keys, TEXT_OR_WHOLE);
        }
        return problems;
    }

    private static TableInspector.ColumnInfo column(Map<String, TableInspector.ColumnInfo> columns, String name) {
        return columns.get(name.toLowerCase(Locale.ROOT));
    }

    private static void check(
            List<String> problems,
            TaskDefinition task,
            TableInspector.ColumnInfo info,
            String property,
            Set<Integer> supported,
            String expected) {
        boolean fractional =
                (info.jdbcType() == Types.NUMERIC || info.jdbcType() == Types.DECIMAL) && info.decimalDigits() > 0;
        if (!supported.contains(info.jdbcType()) || fractional) {
            problems.add("column " + info.name() + " (scan.tasks." + task.name() + "." + property + ") is of type "
                    + typeName(info)
                    + ", which the scan cannot use: it needs " + expected
                    + "; change the column's type or point that property at another column");
        }
    }

    /** Whether a column holds text or a UUID: a text id or shard key. */
    private static boolean textOrUuid(TableInspector.ColumnInfo info) {
        return TEXTS.contains(info.jdbcType()) || uuid(info);
    }

    /** Whether a column is of the database's UUID type (PostgreSQL's and H2's {@code uuid}). */
    static boolean uuid(TableInspector.ColumnInfo info) {
        return info.typeName().equalsIgnoreCase("uuid");
    }

    /**
     * The id or the shard key ({@code role}): of the type its {@code -type} property says, text or a
     * UUID for {@code text}, a whole number for {@code whole}.
     */
    private static void key(
            List<String> problems, TaskDefinition task, TableInspector.ColumnInfo info, String role, KeyType type) {
        String prefix = "scan.tasks." + task.name() + ".";
        String property = prefix + role + "-column";
        boolean text = textOrUuid(info);
        if (type == KeyType.TEXT && !text) {
            problems.add("column " + info.name() + " (" + property + ") is of type " + typeName(info)
                    + ", but " + prefix + role + "-type is text: a text " + role.replace('-', ' ')
                    + " needs a text or UUID column (VARCHAR, TEXT, UUID); for a whole number remove " + role
                    + "-type");
        } else if (type == KeyType.WHOLE && text) {
            problems.add("column " + info.name() + " (" + property + ") is of type " + typeName(info)
                    + ": set " + prefix + role + "-type: text"
                    + (role.equals("id")
                            ? ", and the scan pages by the id's text in binary order"
                            : ", and a row's shard is a hash of its key's text")
                    + " (see \"Text and UUID keys\" in docs/guides/table-and-indexes.md)");
        } else if (type == KeyType.WHOLE) {
            check(problems, task, info, role + "-column", WHOLE_NUMBERS, WHOLE);
        }
    }

    static String typeName(TableInspector.ColumnInfo info) {
        String name = info.typeName().toUpperCase(Locale.ROOT);
        return info.decimalDigits() > 0 && (info.jdbcType() == Types.NUMERIC || info.jdbcType() == Types.DECIMAL)
                ? name + "(" + info.size() + "," + info.decimalDigits() + ")"
                : name;
    }
}
