package io.shardscan.jdbc;

import io.shardscan.core.RangeTable;
import io.shardscan.core.RangeTask;
import io.shardscan.core.Row;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;

/**
 * A {@link RangeTable} over JDBC. The table and id column are the task's validated identifiers,
 * written unquoted, so the database folds their case as it did when the table was created. Reads
 * only; thread-safe.
 */
public final class JdbcRangeTable implements RangeTable {

    private static final Set<Integer> NUMERIC =
            Set.of(Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT, Types.NUMERIC, Types.DECIMAL);

    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;

    public JdbcRangeTable(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.dialect = SqlDialect.detect(dataSource);
    }

    @Override
    public List<Row> page(RangeTask task, long after, long last, int limit) {
        return jdbc.query(
                pageSql(task),
                (ResultSetExtractor<List<Row>>) rs -> rows(rs, task.definition().idColumn()),
                after,
                last,
                limit);
    }

    /** The page's statement: after, last and limit as parameters, a range of the id's index. */
    static String pageSql(RangeTask task) {
        String id = task.definition().idColumn();
        return "SELECT * FROM " + task.definition().table() + " WHERE " + id + " > ? AND " + id + " <= ? ORDER BY " + id
                + " LIMIT ?";
    }

    @Override
    public List<Row> rows(RangeTask task, List<Long> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        String id = task.definition().idColumn();
        return jdbc.query(
                "SELECT * FROM " + task.definition().table() + " WHERE " + id + " IN (" + "?, ".repeat(ids.size() - 1)
                        + "?) ORDER BY " + id,
                (ResultSetExtractor<List<Row>>) rs -> rows(rs, id),
                ids.toArray());
    }

    @Override
    public long minId(RangeTask task) {
        Long min = jdbc.queryForObject(
                "SELECT MIN(" + task.definition().idColumn() + ") FROM "
                        + task.definition().table(),
                Long.class);
        return min == null ? Long.MAX_VALUE : min;
    }

    @Override
    public long maxId(RangeTask task) {
        Long max = jdbc.queryForObject(
                "SELECT MAX(" + task.definition().idColumn() + ") FROM "
                        + task.definition().table(),
                Long.class);
        return max == null ? Long.MIN_VALUE : max;
    }

    @Override
    public List<String> problems(RangeTask task) {
        String property = "scan.tasks." + task.name();
        try {
            return jdbc.query(
                    "SELECT " + task.definition().idColumn() + " FROM "
                            + task.definition().table() + " WHERE 1 = 0",
                    rs -> {
                        ResultSetMetaData meta = rs.getMetaData();
                        int type = meta.getColumnType(1);
                        if (!NUMERIC.contains(type)
                                || ((type == Types.NUMERIC || type == Types.DECIMAL) && meta.getScale(1) > 0)) {
                            return List.of(property + ".id-column: column "
                                    + task.definition().idColumn() + " of "
                                    + task.definition().table() + " is " + meta.getColumnTypeName(1)
                                    + "; range mode needs a whole-number id column (BIGINT), ranges are of ids");
                        }
                        return List.of();
                    });
        } catch (DataAccessException e) {
            return List.of(
                    property + ": cannot read column " + task.definition().idColumn() + " of table "
                            + task.definition().table() + " (" + rootMessage(e) + "): check " + property + ".table and "
                            + property + ".id-column, or create the table on " + dialect.name());
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return String.valueOf(cause.getMessage()).lines().findFirst().orElse("");
    }

    /** Reads every column by its lower-case label; the id is the shard key too, and no row has failed before. */
    private static List<Row> rows(ResultSet rs, String idColumn) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        int count = meta.getColumnCount();
        List<String> labels = new ArrayList<>(count);
        int idIndex = 1;
        for (int i = 1; i <= count; i++) {
            String label = meta.getColumnLabel(i).toLowerCase(Locale.ROOT);
            labels.add(label);
            if (label.equals(idColumn.toLowerCase(Locale.ROOT))) {
                idIndex = i;
            }
        }
        List<Row> page = new ArrayList<>();
        while (rs.next()) {
            Map<String, Object> columns = new LinkedHashMap<>();
            for (int i = 1; i <= count; i++) {
                columns.put(labels.get(i - 1), rs.getObject(i));
            }
            long id = rs.getLong(idIndex);
            page.add(new Row(id, id, 0, columns));
        }
        return page;
    }
}
