package io.shardscan.jdbc;

import java.sql.Types;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Whether a zone-less due-at column is read in another zone than it is written in. This JVM's
 * driver reads and writes zone-less values in the JVM's zone, and the due check reads the
 * database's clock in it too (PgJDBC sets the session's zone to the JVM's; on MySQL and MariaDB
 * the bound is the database's UTC clock plus the JVM's offset); psql, triggers, the database's own
 * clock and other services write them in the database's default zone, so their rows run hours
 * early or late, silently. Stateless.
 */
final class DueAtZoneCheck {

    private DueAtZoneCheck() {}

    /** Whether the column holds local date-times rather than instants (not timestamptz nor TIMESTAMP WITH TIME ZONE). */
    static boolean zoneless(TableInspector.ColumnInfo column) {
        return zoneless(column.jdbcType(), column.typeName());
    }

    /**
     * Whether a column of JDBC type {@code jdbcType} and database type {@code typeName} holds local
     * date-times: PgJDBC reports timestamptz as {@link Types#TIMESTAMP}, its name tells it apart.
     */
    static boolean zoneless(int jdbcType, String typeName) {
        return jdbcType == Types.TIMESTAMP && !"timestamptz".equalsIgnoreCase(typeName);
    }

    /**
     * The warning for the task's zone-less due-at column when the database's zone {@code serverZone}
     * gives other offsets than {@code jvm} at some time of the coming year (so DST counts).
     *
     * @return the warning, naming both zones and the fixes; {@code null} when they agree or the
     *     database's zone name is not one Java knows
     */
    static @Nullable String warning(
            TableInspector.ColumnInfo column, String serverZone, boolean sessionInJvmZone, ZoneId jvm, Instant now) {
        ZoneId server;
        try {
            server = ZoneId.of(serverZone.trim(), ZoneId.SHORT_IDS);
        } catch (DateTimeException e) {
            return null;
        }
        Duration apart = Duration.ZERO;
        for (int quarter = 0; quarter < 4; quarter++) {
            Instant at = now.plus(Duration.ofDays(91L * quarter));
            Duration difference = Duration.ofSeconds(offset(jvm, at) - offset(server, at));
            if (difference.abs().compareTo(apart.abs()) > 0) {
                apart = difference;
            }
        }
        if (apart.isZero()) {
            return null;
        }
        String problem =
                "due-at-column " + column.name() + " is a " + column.typeName().toUpperCase(Locale.ROOT)
                        + " without time zone, and this JVM's zone (" + jvm.getId() + ") is not the database's ("
                        + serverZone + "): ";
        String off = hours(apart.abs()) + " ";
        if (sessionInJvmZone) {
            return problem + "the driver sets the session's zone to " + jvm.getId() + ", so the due check's"
                    + " database clock runs in it, and rows that psql, triggers or other services write in "
                    + serverZone + " (e.g. DEFAULT LOCALTIMESTAMP) run up to " + off
                    + (apart.isNegative() ? "late" : "early")
                    + ". Make the column timestamptz (TIMESTAMP WITH TIME ZONE), or run the JVM in the database's"
                    + " zone (-Duser.timezone=" + serverZone + "), or write the column from this application only";
        }
        return problem + "the due check reads the database's clock in " + jvm.getId() + ", the zone the driver"
                + " writes zone-less values in, so rows that the database's clock (DEFAULT CURRENT_TIMESTAMP, NOW()),"
                + " triggers or other services write in " + serverZone + " run up to " + off
                + (apart.isNegative() ? "late" : "early") + ". Run the JVM in the database's zone (-Duser.timezone="
                + serverZone + "), or give the server the JVM's zone, or write the column from this application"
                + " only";
    }

    private static int offset(ZoneId zone, Instant at) {
        ZoneOffset offset = zone.getRules().getOffset(at);
        return offset.getTotalSeconds();
    }

    private static String hours(Duration duration) {
        long minutes = duration.toMinutes();
        return minutes % 60 == 0 ? minutes / 60 + " h" : minutes / 60 + " h " + minutes % 60 + " min";
    }
}
