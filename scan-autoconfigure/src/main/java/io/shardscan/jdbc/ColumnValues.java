package io.shardscan.jdbc;

import io.shardscan.core.task.Row;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How a fetched page reads each column, decided once per page from its metadata, so that a row holds
 * plain Java values that outlive the result set and bind to what users declare: a timestamp without
 * time zone as a {@link LocalDateTime} and one the driver reports as {@link Types#TIMESTAMP} but holds
 * an instant (PostgreSQL's {@code timestamptz}) as an {@link OffsetDateTime}, both handed on as the
 * {@link Timestamp} {@code getObject} gives; an SQL array as a Java array of its elements; a BLOB as
 * {@code byte[]}; a CLOB, JSON, XML or any value of a driver's own class (PostgreSQL's {@code PGobject}
 * for {@code jsonb}, an enum type or an interval) as the driver's text form; anything else as
 * {@code getObject} reads it ({@code uuid} as {@link java.util.UUID}, {@code numeric} as
 * {@link java.math.BigDecimal}, {@code bytea} as {@code byte[]}).
 */
final class ColumnValues {

    /** Type names read as text whatever class the driver gives them (H2 reads JSON as bytes). */
    private static final Set<String> TEXT_TYPES = Set.of("json", "jsonb", "xml");

    enum Kind {
        LOCAL_TIMESTAMP,
        /** A zone-less timestamp the engine stamps in UTC (see {@link SqlDialect#rowClock}). */
        UTC_TIMESTAMP,
        ZONED_TIMESTAMP,
        ARRAY,
        BYTES,
        TEXT,
        OTHER;

        static Kind of(ResultSetMetaData meta, int column) throws SQLException {
            int type = meta.getColumnType(column);
            String typeName = String.valueOf(meta.getColumnTypeName(column)).toLowerCase(Locale.ROOT);
            if (type == Types.TIMESTAMP) {
                return "timestamptz".equals(typeName) ? ZONED_TIMESTAMP : LOCAL_TIMESTAMP;
            }
            if (type == Types.ARRAY) {
                return ARRAY;
            }
            // MariaDB reports a BLOB as LONGVARBINARY of class java.sql.Blob
            String className = meta.getColumnClassName(column);
            if (type == Types.BLOB || "java.sql.Blob".equals(className)) {
                return BYTES;
            }
            if (type == Types.CLOB
                    || type == Types.NCLOB
                    || type == Types.SQLXML
                    || TEXT_TYPES.contains(typeName)
                    || "java.sql.Clob".equals(className)) {
                return TEXT;
            }
            return className == null || className.startsWith("java.") || className.startsWith("[") ? OTHER : TEXT;
        }
    }

    private ColumnValues() {}

    /** The kind of each of the page's columns, by position from 0. */
    static Kind[] kinds(ResultSetMetaData meta) throws SQLException {
        Kind[] kinds = new Kind[meta.getColumnCount()];
        for (int i = 0; i < kinds.length; i++) {
            kinds[i] = Kind.of(meta, i + 1);
        }
        return kinds;
    }

    /**
     * The class of the value a fetched row holds for each column of {@code from} (a table as the
     * fetch names it), by lower-case column name: read from the metadata of a query that returns no row.
     */
    static Map<String, String> heldClasses(Connection connection, String from) throws SQLException {
        Map<String, String> classes = new LinkedHashMap<>();
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT * FROM " + from + " WHERE 1 = 0")) {
            ResultSetMetaData meta = rs.getMetaData();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                String held =
                        switch (Kind.of(meta, i)) {
                            case LOCAL_TIMESTAMP, UTC_TIMESTAMP, ZONED_TIMESTAMP -> Timestamp.class.getName();
                            case ARRAY -> Object[].class.getName();
                            case BYTES -> byte[].class.getName();
                            case TEXT -> String.class.getName();
                            case OTHER -> meta.getColumnClassName(i);
                        };
                if (held != null) {
                    classes.put(meta.getColumnLabel(i).toLowerCase(Locale.ROOT), held);
                }
            }
        }
        return classes;
    }

    /** Reads column {@code column} (from 1) of the current row as its kind says. */
    static @Nullable Object read(ResultSet rs, int column, Kind kind) throws SQLException {
        return switch (kind) {
            case LOCAL_TIMESTAMP -> deferred(rs.getObject(column, LocalDateTime.class));
            case UTC_TIMESTAMP -> deferredUtc(rs.getObject(column, LocalDateTime.class));
            case ZONED_TIMESTAMP -> deferred(rs.getObject(column, OffsetDateTime.class));
            case ARRAY -> elements(rs.getArray(column));
            case BYTES -> rs.getBytes(column);
            case TEXT -> rs.getString(column);
            case OTHER -> rs.getObject(column);
        };
    }

    /** An SQL array's elements, read while the result set is open (a driver's array may not outlive it). */
    private static @Nullable Object elements(@Nullable Array array) throws SQLException {
        if (array == null) {
            return null;
        }
        try {
            return array.getArray();
        } finally {
            array.free();
        }
    }

    /**
     * A TIMESTAMP column read as the driver's cheap {@link LocalDateTime} and turned into the
     * {@link Timestamp} that {@code getObject} returns only when the handler reads it: the
     * {@code Calendar} arithmetic of {@code getTimestamp} was a third of a page fetch's CPU.
     */
    private static Row.@Nullable Deferred deferred(@Nullable LocalDateTime value) {
        return value == null ? null : () -> Timestamp.valueOf(value);
    }

    /**
     * The same for a zone-less column the engine stamps in UTC: the handler gets the instant it was
     * stamped at, whatever the JVM's zone.
     */
    private static Row.@Nullable Deferred deferredUtc(@Nullable LocalDateTime value) {
        return value == null ? null : () -> Timestamp.from(value.toInstant(ZoneOffset.UTC));
    }

    /** The same for PostgreSQL's {@code timestamptz}, which the driver reads as an instant, never as a {@link LocalDateTime}. */
    private static Row.@Nullable Deferred deferred(@Nullable OffsetDateTime value) {
        return value == null ? null : () -> Timestamp.from(value.toInstant());
    }
}
