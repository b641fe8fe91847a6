package io.shardscan.jdbc;

import io.shardscan.core.spi.RangeTable;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowColumns;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;

/**
 * A {@link RangeTable} over JDBC. The table and id column are the task's validated identifiers,
 * written unquoted, so the database folds their case as it did when the table was created. Every
 * read is bounded by the statement timeout given at construction: one that waits on a lock past it
 * is cancelled and fails as a {@link io.shardscan.core.spi.StatementCancelledException} naming the
 * table. Reads only; thread-safe.
 */
public final class JdbcRangeTable implements RangeTable {

    private static final Set<Integer> NUMERIC =
            Set.of(Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT, Types.NUMERIC, Types.DECIMAL);

    private final DataSource dataSource;
    private final BoundedJdbc bounded;
    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;
    /** Each task's page statement, selecting only the columns its handler reads, once inspected. */
    private final Map<String, String> pages = new ConcurrentHashMap<>();
    /** Each task's last column layout, shared by the rows of its pages. */
    private final Map<String, Row.Layout> layouts = new ConcurrentHashMap<>();

    /**
     * @param statementTimeout how long a read may run before the driver cancels it: the engine's
     *     {@link io.shardscan.core.EngineSettings#statementTimeout()}
     */
    public JdbcRangeTable(DataSource dataSource, Duration statementTimeout) {
        this(dataSource, statementTimeout, SqlDialect.detect(dataSource));
    }

    /** The same on a database of {@code dialect}. */
    public JdbcRangeTable(DataSource dataSource, Duration statementTimeout, SqlDialect dialect) {
        this.dataSource = dataSource;
        this.bounded = new BoundedJdbc(dataSource, statementTimeout, dialect);
        this.jdbc = bounded.jdbc();
        this.dialect = bounded.dialect();
    }

    @Override
    public List<Row> page(RangeTask task, long after, long last, int limit) {
        return bounded.on(
                task.definition().table(),
                () -> jdbc.query(
                        pages.computeIfAbsent(task.name(), name -> pageSql(task, dialect, "*")),
                        (ResultSetExtractor<List<Row>>) rs -> rows(rs, task),
                        after,
                        last,
                        limit));
    }

    /** The page's statement, of every column: after, last and limit as parameters, a range of the id's index. */
    static String pageSql(RangeTask task, SqlDialect dialect) {
        return pageSql(task, dialect, "*");
    }

    private static String pageSql(RangeTask task, SqlDialect dialect, String select) {
        String id = task.definition().columns().id();
        return dialect.limit(
                "SELECT " + select + " FROM " + task.definition().table() + " WHERE " + id + " > ? AND " + id
                        + " <= ? ORDER BY " + id,
                "?");
    }

    @Override
    public List<Row> rows(RangeTask task, List<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        String id = task.definition().columns().id();
        return bounded.on(
                task.definition().table(),
                () -> jdbc.query(
                        "SELECT * FROM " + task.definition().table() + " WHERE " + id + " IN ("
                                + "?, ".repeat(ids.size() - 1) + "?) ORDER BY " + id,
                        (ResultSetExtractor<List<Row>>) rs -> rows(rs, task),
                        ids.toArray()));
    }

    @Override
    public long minId(RangeTask task) {
        Long min = idAggregate(task, "MIN");
        return min == null ? Long.MAX_VALUE : min;
    }

    @Override
    public long maxId(RangeTask task) {
        Long max = idAggregate(task, "MAX");
        return max == null ? Long.MIN_VALUE : max;
    }

    /** {@code MIN} or {@code MAX} of the task's id column; null for an empty table. */
    private @Nullable Long idAggregate(RangeTask task, String function) {
        String table = task.definition().table();
        return bounded.on(
                table,
                () -> jdbc.queryForObject(
                        "SELECT " + function + "(" + task.definition().columns().id() + ") FROM " + table, Long.class));
    }

    @Override
    public SchemaReport inspect(RangeTask task) {
        String qualified = task.definition().table();
        String schema = qualified.contains(".") ? qualified.substring(0, qualified.indexOf('.')) : null;
        String table = qualified.substring(qualified.indexOf('.') + 1);
        String id = task.definition().columns().id();
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            Map<String, TableInspector.ColumnInfo> columns = TableInspector.columns(metaData, dialect, schema, table);
            if (columns.isEmpty()) {
                return new SchemaReport(false, List.of(), false, List.of(), null);
            }
            List<String> names = columns.values().stream()
                    .map(TableInspector.ColumnInfo::name)
                    .toList();
            TableInspector.ColumnInfo column = columns.get(id.toLowerCase(Locale.ROOT));
            if (column == null) {
                return new SchemaReport(true, List.of(id), false, List.of(), List.of(), names, 0);
            }
            List<String> problems = new ArrayList<>();
            if (!NUMERIC.contains(column.jdbcType())
                    || ((column.jdbcType() == Types.NUMERIC || column.jdbcType() == Types.DECIMAL)
                            && column.decimalDigits() > 0)) {
                problems.add("id-column " + column.name() + " of " + qualified + " is " + column.typeName()
                        + "; range mode needs a whole-number id column (BIGINT), ranges are of ids");
            }
            boolean indexed =
                    leadsAnIndex(metaData, dialect, column.schema() != null ? column.schema() : schema, column);
            RowColumns reads = task.definition().rowColumns();
            // a handler type that names its columns gets only those (and the id), as a status task's fetch
            pages.put(
                    task.name(),
                    pageSql(
                            task,
                            dialect,
                            reads.all()
                                    ? "*"
                                    // as the database spells them, quoted as a status task's fetch quotes them
                                    : reads.select(task.definition(), names).stream()
                                            .map(dialect::quote)
                                            .collect(java.util.stream.Collectors.joining(", "))));
            return new SchemaReport(
                            true,
                            List.of(),
                            indexed,
                            indexed
                                    ? List.of()
                                    : List.of("CREATE INDEX " + table + "_" + id + "_idx ON " + qualified + " (" + id
                                            + ")"),
                            problems,
                            names,
                            0)
                    .withColumnClasses(ColumnValues.heldClasses(connection, qualified));
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "scan.tasks." + task.name() + ": cannot read the metadata of table " + qualified + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /** Whether an index (the primary key's included) has the column first, so a range of ids is a range of it. */
    private static boolean leadsAnIndex(
            DatabaseMetaData metaData, SqlDialect dialect, @Nullable String qualifier, TableInspector.ColumnInfo column)
            throws SQLException {
        MetadataScope scope = MetadataScope.of(dialect, metaData.getConnection(), qualifier, true);
        try (ResultSet rs = metaData.getIndexInfo(scope.catalog(), scope.schema(), column.table(), false, true)) {
            while (rs.next()) {
                if (rs.getShort("ORDINAL_POSITION") == 1
                        && column.name().equalsIgnoreCase(rs.getString("COLUMN_NAME"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Reads the selected columns by their lower-case labels, one array of values per row over a layout
     * the task's pages share; the id is the shard key too, and no row has failed before.
     */
    private List<Row> rows(ResultSet rs, RangeTask task) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        int count = meta.getColumnCount();
        List<String> labels = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            labels.add(meta.getColumnLabel(i).toLowerCase(Locale.ROOT));
        }
        Row.Layout layout = layouts.get(task.name());
        if (layout == null || !layout.names().equals(labels)) {
            layout = new Row.Layout(labels);
            layouts.put(task.name(), layout);
        }
        int idIndex =
                Math.max(0, layout.position(task.definition().columns().id().toLowerCase(Locale.ROOT))) + 1;
        ColumnValues.Kind[] kinds = ColumnValues.kinds(meta);
        List<Row> page = new ArrayList<>();
        while (rs.next()) {
            Object[] values = new Object[count];
            for (int i = 0; i < count; i++) {
                values[i] = ColumnValues.read(rs, i + 1, kinds[i]);
            }
            long id = rs.getLong(idIndex);
            page.add(layout.row(id, id, 0, values));
        }
        return page;
    }
}
