package io.shardscan.jdbc;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.ColumnMapRowMapper;
import org.springframework.jdbc.support.JdbcUtils;

/**
 * One row of a task with every column, for an operator ({@link JdbcTaskStore#readRow}): timestamps as
 * what they hold, not as {@code java.sql.Timestamp}s in the JVM's zone. A column that holds instants
 * (timestamptz, {@code TIMESTAMP WITH TIME ZONE}) is an {@link OffsetDateTime} with the offset the
 * driver gives; the zone-less updated-at column, which the engine stamps in UTC ({@link
 * SqlDialect#rowClock}), an {@link OffsetDateTime} at offset 0; every other zone-less one a {@link
 * LocalDateTime} as stored, since the table does not say its zone. Other values as {@link
 * ColumnMapRowMapper} reads them.
 */
final class RowColumnsMapper extends ColumnMapRowMapper {

    private final SqlDialect dialect;
    private final TableNames names;

    RowColumnsMapper(SqlDialect dialect, TableNames names) {
        this.dialect = dialect;
        this.names = names;
    }

    @Override
    protected @Nullable Object getColumnValue(ResultSet rs, int index) throws SQLException {
        ResultSetMetaData columns = rs.getMetaData();
        int type = columns.getColumnType(index);
        if (type != Types.TIMESTAMP && type != Types.TIMESTAMP_WITH_TIMEZONE) {
            return super.getColumnValue(rs, index);
        }
        if (!DueAtZoneCheck.zoneless(type, columns.getColumnTypeName(index))) {
            return rs.getObject(index, OffsetDateTime.class);
        }
        if (JdbcUtils.lookupColumnName(columns, index).equalsIgnoreCase(names.updatedAt())) {
            Instant stamped = dialect.readRowTime(rs, index, false);
            return stamped == null ? null : stamped.atOffset(ZoneOffset.UTC);
        }
        return rs.getObject(index, LocalDateTime.class);
    }
}
