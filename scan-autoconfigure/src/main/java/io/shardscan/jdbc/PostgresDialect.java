package io.shardscan.jdbc;

import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.TaskDefinition;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL: a row's shard is {@link SqlDialect#shardOf}, kept a range scan by a partial expression index
 * over pending rows only, so finished rows never enter the index the fetch reads.
 */
final class PostgresDialect extends SqlDialect {

    private static final Pattern INDEX_NAME = Pattern.compile("INDEX (\\S+) ON ");

    private static final Pattern ANY_ARRAY = Pattern.compile("(.*)=anyarray\\[(.*)]");

    /** The driver cancels a statement past its query timeout as if the user did: SQLState 57014, no SQLTimeoutException. */
    @Override
    protected boolean cancelledByTimeout(SQLException e) {
        return super.cancelledByTimeout(e) || "57014".equals(e.getSQLState());
    }

    /** PostgreSQL replaces the first match only without the {@code g} flag. */
    @Override
    protected String replaceAll(String expression, String pattern) {
        return "regexp_replace(" + expression + ", '" + pattern + "', '#', 'g')";
    }

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    protected String nowPlusMillis() {
        return "(LOCALTIMESTAMP + ? * INTERVAL '1 millisecond')";
    }

    @Override
    protected String now() {
        return "LOCALTIMESTAMP";
    }

    /**
     * {@code statement_timestamp()}, not {@code CURRENT_TIMESTAMP}: that is the transaction's start, and
     * a transactional task writes its outcomes in the transaction its handler ran in, so a row that
     * failed after a long call would be stamped before it, and rest that much less.
     */
    @Override
    protected String rowClock(boolean zoned) {
        return zoned ? "statement_timestamp()" : "(statement_timestamp() AT TIME ZONE 'UTC')";
    }

    @Override
    protected boolean updatesInWith() {
        return true;
    }

    /**
     * Not {@code SHOW timezone} nor {@code pg_settings.reset_val}: the driver sets the session's zone
     * to the JVM's when it connects, and that becomes both. The server's default is what
     * {@code ALTER DATABASE/ROLE ... SET timezone} stored (the most specific first), else the
     * configuration file's value (readable only with {@code pg_read_all_settings}), else the
     * built-in default.
     */
    @Override
    @Nullable
    protected String serverZone(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT s.setconfig FROM pg_db_role_setting s"
                        + " WHERE s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))"
                        + " AND s.setrole IN (0, (SELECT oid FROM pg_roles WHERE rolname = current_user))"
                        + " ORDER BY (s.setrole <> 0) DESC, (s.setdatabase <> 0) DESC")) {
            while (rs.next()) {
                for (Object setting : (Object[]) rs.getArray(1).getArray()) {
                    String text = String.valueOf(setting);
                    if (text.toLowerCase(Locale.ROOT).startsWith("timezone=")) {
                        return text.substring("timezone=".length());
                    }
                }
            }
        }
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT (SELECT setting FROM pg_file_settings"
                        + " WHERE lower(name) = 'timezone' AND applied ORDER BY seqno DESC LIMIT 1),"
                        + " (SELECT boot_val FROM pg_settings WHERE name = 'TimeZone')")) {
            return rs.next() ? (rs.getString(1) != null ? rs.getString(1) : rs.getString(2)) : null;
        } catch (SQLException e) {
            // no right to read the configuration file's settings: the zone is unknown
            return null;
        }
    }

    @Override
    protected boolean sessionInJvmZone() {
        return true;
    }

    /**
     * Binds whole-number ids as a primitive {@code long[]}, which the driver sends in binary; the text
     * form of {@code createArrayOf} was a fifth of a write-back's CPU (measured with JFR).
     */
    @Override
    protected void bindIds(PreparedStatement statement, int index, List<?> ids, TableNames names) throws SQLException {
        if (!ids.isEmpty() && !(ids.get(0) instanceof Long)) {
            Object[] values = ids.stream().map(id -> idValue(id, names)).toArray();
            statement.setArray(
                    index, statement.getConnection().createArrayOf(names.idUuid() ? "uuid" : "text", values));
            return;
        }
        long[] values = new long[ids.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = (Long) ids.get(i);
        }
        statement.setObject(index, values);
    }

    /**
     * A text id in the {@code "C"} collation, byte by byte: the database's default collation orders
     * by language rules (punctuation ignored at first, say), which the engine's order of ids cannot
     * follow. A UUID orders by its bytes already and takes no collation.
     */
    @Override
    protected String keysetId(TaskDefinition task, TableNames names) {
        return binary(task, names, quote(names.id()));
    }

    private static String binary(TaskDefinition task, TableNames names, String id) {
        return task.columns().idType() == KeyType.TEXT && !names.idUuid() ? id + " COLLATE \"C\"" : id;
    }

    /** The index's order columns as the task names them, a text id in the collation the keyset reads it in. */
    private static String orderColumns(TaskDefinition task, TableNames names) {
        String id = binary(task, names, task.columns().id());
        return task.delayed() ? task.columns().dueAt() + ", " + id : id;
    }

    @Override
    protected boolean fencesInOneStatement() {
        return true;
    }

    /**
     * The upsert takes the fence row's lock as the UPDATE did, so it waits for write-backs under the
     * old epoch; one round trip instead of five (begin, update, insert, read back, commit), which
     * made claiming 32 shards take seconds on a loaded machine while the rounds competed for the CPU.
     */
    @Override
    protected String textKeyHash(String key) {
        // md5 and the casts are immutable, so an index can hold it; bit(32) to bigint is unsigned
        return "('x' || SUBSTR(MD5(" + key + "::TEXT), 1, 8))::BIT(32)::BIGINT";
    }

    @Override
    protected boolean hasScanIndex(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException {
        List<String> definitions = indexDefinitions(metaData, names);
        List<String> order = new ArrayList<>(SchemaDdl.orderColumns(names));
        order.set(order.size() - 1, binary(task, names, names.id()));
        String wanted = normalize(shardOf(task, names.shardKey()) + "," + String.join(",", order));
        List<String> pending = new ArrayList<>();
        pending.add(names.status() + " = " + task.statuses().pending());
        names.match().conditions().forEach(c -> pending.add(printed(c)));
        List<String> failed = new ArrayList<>(pending);
        failed.add(names.retries() + " > 0");
        return definitions.stream().anyMatch(d -> covers(d, wanted, conjuncts(pending)))
                && (!task.retryRules().retries()
                        || definitions.stream().anyMatch(d -> covers(d, wanted, conjuncts(failed))));
    }

    /** A DROP INDEX for each index of the table named as one {@link #scanIndexStatements} creates. */
    @Override
    protected List<String> staleIndexStatements(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException {
        Set<String> created = new HashSet<>();
        for (String statement : scanIndexStatements(task, names)) {
            Matcher name = INDEX_NAME.matcher(statement);
            if (name.find()) {
                created.add(name.group(1).toLowerCase(Locale.ROOT));
            }
        }
        List<String> drops = new ArrayList<>();
        for (String definition : indexDefinitions(metaData, names)) {
            Matcher name = INDEX_NAME.matcher(definition);
            if (name.find() && created.contains(name.group(1).toLowerCase(Locale.ROOT))) {
                // IF EXISTS: a plain-MOD index of that name is also among the shard warning's drops
                drops.add(
                        "DROP INDEX IF EXISTS " + (names.schema() == null ? "" : names.schema() + ".") + name.group(1));
            }
        }
        return drops;
    }

    /** A DROP INDEX for each index of the table whose key is the plain {@code mod(key, N)}. */
    @Override
    protected List<String> outdatedShardStatements(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException {
        String plain = normalize("mod(" + names.shardKey() + "," + task.shards() + "),");
        List<String> drops = new ArrayList<>();
        for (String definition : indexDefinitions(metaData, names)) {
            Matcher name = INDEX_NAME.matcher(definition);
            if (normalize(definition).contains(plain) && name.find()) {
                drops.add("DROP INDEX " + (names.schema() == null ? "" : names.schema() + ".") + name.group(1));
            }
        }
        return drops;
    }

    /** Whether an index definition has the key {@code wanted} and exactly the predicate's conjuncts. */
    private static boolean covers(String definition, String wanted, Set<String> predicate) {
        int where = definition.indexOf(" WHERE ");
        String keys = where < 0 ? definition : definition.substring(0, where);
        Set<String> conjuncts = where < 0 ? Set.of() : conjuncts(List.of(definition.substring(where + 7)));
        return normalize(keys).contains(wanted) && conjuncts.equals(predicate);
    }

    /** A match condition as PostgreSQL prints it back: a list as {@code = ANY (ARRAY[...])}. */
    private static String printed(MatchSql.Condition condition) {
        List<String> literals = condition.literals();
        return literals.size() > 1
                ? condition.column() + " = ANY (ARRAY[" + String.join(", ", literals) + "])"
                : condition.on(condition.column());
    }

    /** The conditions joined by AND in {@code predicates}, each in one comparable form. */
    private static Set<String> conjuncts(List<String> predicates) {
        Set<String> conjuncts = new HashSet<>();
        for (String predicate : predicates) {
            boolean quoted = false;
            int start = 0;
            for (int i = 0; i < predicate.length(); i++) {
                if (predicate.charAt(i) == '\'') {
                    quoted = !quoted;
                } else if (!quoted && predicate.startsWith(" AND ", i)) {
                    conjuncts.add(conjunct(predicate.substring(start, i)));
                    start = i + 5;
                }
            }
            conjuncts.add(conjunct(predicate.substring(start)));
        }
        return conjuncts;
    }

    /**
     * One condition without casts, parentheses, double quotes and spaces, lower case except inside
     * its literals, whose quotes are dropped; the values of an {@code = ANY (ARRAY[...])} sorted.
     */
    private static String conjunct(String condition) {
        String uncast = condition.replaceAll("::[a-z ]+(\\[])?", "");
        StringBuilder out = new StringBuilder();
        boolean quoted = false;
        for (char c : uncast.toCharArray()) {
            if (c == '\'') {
                quoted = !quoted;
            } else if (quoted) {
                out.append(c);
            } else if (!Character.isWhitespace(c) && c != '(' && c != ')' && c != '"') {
                out.append(Character.toLowerCase(c));
            }
        }
        Matcher list = ANY_ARRAY.matcher(out);
        if (list.matches()) {
            List<String> values = new ArrayList<>(List.of(list.group(2).split(",")));
            Collections.sort(values);
            return list.group(1) + "=anyarray[" + String.join(",", values) + "]";
        }
        return out.toString();
    }

    /** Strips what PostgreSQL adds when it prints an index back: casts, parentheses, quotes, spaces. */
    private static String normalize(String sql) {
        return sql.toLowerCase(Locale.ROOT)
                .replaceAll("::[a-z ]+", "")
                .replaceAll("[()\"\\s]", "")
                .replace("usingbtree", "");
    }

    /**
     * The partial index over pending rows, and, when the task retries, a second one over its
     * failed pending rows: a tier of failed rows then reads only those, not every pending row of
     * its shard (measured: 12 ms for an empty retry tier of a 7 800-row shard, 0.03 ms with it).
     * A task's match is part of both predicates, so each task on a shared table reads only its rows.
     */
    @Override
    protected List<String> scanIndexStatements(TaskDefinition task, TableNames names) {
        StringBuilder match = new StringBuilder();
        names.match().ddl().forEach(condition -> match.append(" AND ").append(condition));
        String columns = " ON " + task.table() + " ("
                + shardOf(task, task.columns().shardKey()) + ", " + orderColumns(task, names) + ") WHERE "
                + task.columns().status() + " = " + task.statuses().pending() + match;
        // each task with a match has indexes of its own, named after it: their predicates differ
        String qualifier = SchemaDdl.qualifier(task.match().isEmpty() ? List.of() : List.of(task.name()));
        String pendingIndex = "CREATE INDEX " + SchemaDdl.indexName(task, qualifier) + columns;
        if (!task.retryRules().retries()) {
            return List.of(pendingIndex);
        }
        return List.of(
                pendingIndex,
                "CREATE INDEX " + SchemaDdl.retryIndexName(task, qualifier) + columns + " AND "
                        + task.columns().retry() + " > 0");
    }

    /**
     * A partial index over finished rows (any status but pending) by shard and last update: an
     * archive batch of done rows, or of done and dead ones, is a range scan of one shard's rows
     * older than the cutoff, and pending rows never enter it (checked with EXPLAIN: a bitmap or
     * index scan on it where an index on (status, updated_at) was ignored for a sequential scan).
     * A task's match is part of the predicate, as in its scan index.
     */
    @Override
    protected List<String> archiveIndexStatements(TaskDefinition task, TableNames names) {
        StringBuilder match = new StringBuilder();
        names.match().ddl().forEach(condition -> match.append(" AND ").append(condition));
        String qualifier = SchemaDdl.qualifier(task.match().isEmpty() ? List.of() : List.of(task.name()));
        return List.of("CREATE INDEX " + SchemaDdl.finishedIndexName(task, qualifier) + " ON " + task.table() + " ("
                + shardOf(task, task.columns().shardKey()) + ", "
                + task.columns().updatedAt() + ") WHERE "
                + task.columns().status() + " <> " + task.statuses().pending() + match);
    }

    /** An index as {@link #archiveIndexStatements} prints it, or one over done rows only when dead ones stay. */
    @Override
    protected boolean hasArchiveIndex(DatabaseMetaData metaData, TaskDefinition task, TableNames names)
            throws SQLException {
        String wanted = normalize(shardOf(task, names.shardKey()) + "," + names.updatedAt());
        List<String> finished = new ArrayList<>(
                List.of(names.status() + " <> " + task.statuses().pending()));
        List<String> done =
                new ArrayList<>(List.of(names.status() + " = " + task.statuses().done()));
        names.match().conditions().forEach(c -> {
            finished.add(printed(c));
            done.add(printed(c));
        });
        return indexDefinitions(metaData, names).stream()
                .anyMatch(d -> covers(d, wanted, conjuncts(finished))
                        || (!task.archive().includeDead() && covers(d, wanted, conjuncts(done))));
    }

    @Override
    protected List<String> archiveTableStatements(TaskDefinition task, String archiveTable) {
        return List.of("CREATE TABLE " + archiveTable + " (LIKE " + task.table() + ", PRIMARY KEY ("
                + task.columns().id() + "))");
    }

    @Override
    String columnType(TableInspector.ColumnInfo column) {
        // a serial column's type name would add a sequence: the archive takes the values as they are
        return switch (column.typeName()) {
            case "bigserial" -> "int8";
            case "serial" -> "int4";
            case "smallserial" -> "int2";
            default -> super.columnType(column);
        };
    }

    /** The definitions of the table's indexes, as PostgreSQL prints them. */
    private List<String> indexDefinitions(DatabaseMetaData metaData, TableNames names) throws SQLException {
        String sql = "SELECT indexdef FROM pg_indexes WHERE tablename = ?"
                + (names.schema() == null ? " AND schemaname = ANY (current_schemas(false))" : " AND schemaname = ?");
        List<String> definitions = new ArrayList<>();
        try (PreparedStatement statement = metaData.getConnection().prepareStatement(sql)) {
            statement.setString(1, names.table());
            if (names.schema() != null) {
                statement.setString(2, names.schema());
            }
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    definitions.add(rs.getString(1));
                }
            }
        }
        return definitions;
    }
}
