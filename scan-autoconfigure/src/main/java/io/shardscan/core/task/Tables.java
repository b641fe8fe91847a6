package io.shardscan.core.task;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The physical tables of a sharded task (seed 001's {@code tb_order_0000 … tb_order_1023} over several
 * databases), all with the task's columns, each in a named source (the data source it lives in). The
 * task's logical shards span (table, shard key mod {@code perTable}): logical shard {@code s} is shard
 * {@code s mod perTable} of table {@code s / perTable}, so table {@code i} owns the logical shards
 * {@code i·perTable … (i+1)·perTable − 1}, and every lease, fence and per-key order is one logical shard's
 * as for a task of one table.
 *
 * @param tables the tables in the order their logical shards are numbered; names are unique
 * @param perTable the shards of each table, each a {@code shard key mod perTable} class of its rows
 */
public record Tables(List<Table> tables, int perTable) {

    private static final Pattern RANGE = Pattern.compile("\\{(\\d+)\\.\\.(\\d+)}");

    /**
     * One physical table and where it lives.
     *
     * @param name the table, optionally schema-qualified
     * @param source the data source that holds it (the application's bean name)
     */
    public record Table(String name, String source) {

        /** The source of a table in the engine's own data source, where its runs live. */
        public static final String HOME = "";

        public Table {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(source, "source");
        }
    }

    public Tables {
        tables = List.copyOf(tables);
        if (tables.isEmpty()) {
            throw new IllegalArgumentException("a sharded task needs at least one table");
        }
        if (perTable < 1) {
            throw new IllegalArgumentException("shards per table must be at least 1 (was " + perTable + ")");
        }
        Set<String> names = new HashSet<>();
        for (Table table : tables) {
            if (!names.add(table.name().toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("the table " + table.name() + " is named twice");
            }
        }
        if ((long) tables.size() * perTable > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    tables.size() + " tables of " + perTable + " shards are too many shards");
        }
    }

    /** The task's logical shards: every table's. */
    public int shards() {
        return tables.size() * perTable;
    }

    /** The position in {@link #tables()} of the table that logical shard {@code shard} belongs to. */
    public int tableOf(int shard) {
        return shard / perTable;
    }

    /** The name of the table that logical shard {@code shard} belongs to. */
    public String nameOf(int shard) {
        return tables.get(tableOf(shard)).name();
    }

    /** Logical shard {@code shard}'s shard within its table: the {@code shard key mod perTable} class it holds. */
    public int localShard(int shard) {
        return shard % perTable;
    }

    /** The logical shard of table {@code table}'s shard {@code local}. */
    public int logicalShard(int table, int local) {
        return table * perTable + local;
    }

    /** The same tables with each one's part of a task: this table alone, its logical shards unchanged. */
    Tables only(int table) {
        return new Tables(List.of(tables.get(table)), perTable);
    }

    /**
     * The table names a setting lists: names separated by commas, each of which may hold one numbered
     * range {@code {first..last}}, whose numbers keep the width of {@code first} ({@code tb_order_{0000..1023}}
     * names {@code tb_order_0000} to {@code tb_order_1023}).
     *
     * @throws IllegalArgumentException naming the part that is not a name or a range
     */
    public static List<String> expand(String names) {
        List<String> expanded = new ArrayList<>();
        for (String part : names.split(",")) {
            String name = part.strip();
            if (name.isEmpty()) {
                continue;
            }
            Matcher range = RANGE.matcher(name);
            if (!range.find()) {
                expanded.add(name);
                continue;
            }
            String first = range.group(1);
            long from = Long.parseLong(first);
            long to = Long.parseLong(range.group(2));
            if (to < from || to - from >= 100_000) {
                throw new IllegalArgumentException(
                        "'" + name + "': a range {first..last} needs first <= last, at" + " most 100000 numbers");
            }
            String head = name.substring(0, range.start());
            String tail = name.substring(range.end());
            if (RANGE.matcher(tail).find()) {
                throw new IllegalArgumentException("'" + name + "' holds two ranges: give one {first..last} per name");
            }
            for (long n = from; n <= to; n++) {
                String number = String.valueOf(n);
                expanded.add(head + "0".repeat(Math.max(0, first.length() - number.length())) + number + tail);
            }
        }
        return expanded;
    }
}
