package io.shardscan.core.spi;

import io.shardscan.core.task.Row;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The failed or dead rows of a task that share one last error, digits aside: errors that differ only
 * in their runs of digits (a row's id, a count, a port) are one group. Immutable.
 *
 * @param error the group's last error with every run of digits as {@code #} (e.g. {@code order # not
 *     found}), or {@code null} for rows without one; a requeue by error takes it (or any error of the group)
 * @param rows how many rows have it
 * @param firstSeen the earliest last update among them (the oldest of their latest failures)
 * @param lastSeen the latest last update among them
 * @param exampleIds a few of their ids, lowest first, each as {@link Row#idValue()} gives it
 * @param example one of their last errors as the store keeps it, or {@code null} for rows without one
 * @param tables for a sharded task, the tables that hold the most of its rows, the most first, at most
 *     {@link #TABLES_SHOWN}; empty for a task of one table
 */
public record FailureGroup(
        @Nullable String error,
        long rows,
        Instant firstSeen,
        Instant lastSeen,
        List<?> exampleIds,
        @Nullable String example,
        List<TableRows> tables) {

    /** The most tables a group lists: the few that hold most of its rows, for a row on a screen. */
    public static final int TABLES_SHOWN = 5;

    public FailureGroup {
        exampleIds = List.copyOf(exampleIds);
        tables = List.copyOf(tables);
    }

    /** A group of a task of one table. */
    public FailureGroup(
            @Nullable String error,
            long rows,
            Instant firstSeen,
            Instant lastSeen,
            List<?> exampleIds,
            @Nullable String example) {
        this(error, rows, firstSeen, lastSeen, exampleIds, example, List.of());
    }

    /**
     * One table of a sharded task and how many of a group's rows it holds.
     *
     * @param table the table's name
     * @param rows the group's rows in it
     */
    public record TableRows(String table, long rows) {}

    /**
     * The parts of an error that vary from row to row, as regular expressions that Java and the
     * databases (PostgreSQL, MySQL 8, MariaDB, H2) read alike, in the order they are replaced: a UUID
     * (a row's or a receiver's id, whose letters a digit run would leave), then every run of digits.
     */
    public static final List<String> VARYING_PARTS =
            List.of("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", "[0-9]+");

    /** The group of {@code error}: the error with each of its {@link #VARYING_PARTS} as {@code #}. */
    public static String keyOf(String error) {
        String key = error;
        for (String part : VARYING_PARTS) {
            key = key.replaceAll(part, "#");
        }
        return key;
    }
}
