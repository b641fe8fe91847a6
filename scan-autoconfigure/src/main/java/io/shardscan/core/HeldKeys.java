package io.shardscan.core;

import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The shard keys of one shard whose later rows wait: once a row of a key fails (or is skipped, or
 * times out), that key's rows later in the fetch order (a greater id; with a due-at column a later
 * due time, then a greater id: {@link RowKey#ORDER}) are not started until it is done or dead. Built from the table's
 * failed pending rows when the shard is claimed, kept up to date by the lanes. Thread-safe;
 * {@link #admits} is cheap while nothing is held.
 */
final class HeldKeys {

    private final boolean ordered;
    private final Map<Long, TreeSet<RowKey>> waiting = new HashMap<>();
    private volatile int size;

    /** @param ordered whether the task keeps per-key order; when not, nothing is ever held */
    HeldKeys(boolean ordered) {
        this.ordered = ordered;
    }

    /** Whether {@code row} may start: its key waits for nothing, or it is the row its key waits for (or earlier). */
    boolean admits(Row row) {
        if (size == 0) {
            return true;
        }
        synchronized (this) {
            TreeSet<RowKey> rows = waiting.get(row.shardKey());
            if (rows == null) {
                return true;
            }
            RowKey key = row.key();
            return rows.first().sameRow(key) || RowKey.ORDER.compare(key, rows.first()) <= 0;
        }
    }

    /** {@code row} failed, was skipped or timed out: its key's later rows wait for it. */
    void hold(Row row) {
        hold(row.key());
    }

    synchronized void hold(RowKey row) {
        if (!ordered) {
            return;
        }
        TreeSet<RowKey> rows = waiting.computeIfAbsent(row.shardKey(), k -> new TreeSet<>(RowKey.ORDER));
        // one place per id: a row whose due time changed replaces its old place
        rows.removeIf(held -> held.sameRow(row));
        rows.add(row);
        size = waiting.size();
    }

    /**
     * {@code row} is done or dead: its key's later rows go on, unless another of its rows still waits.
     *
     * @return whether its key no longer waits for anything
     */
    boolean release(Row row) {
        if (size == 0) {
            return false;
        }
        synchronized (this) {
            TreeSet<RowKey> rows = waiting.get(row.shardKey());
            RowKey key = row.key();
            if (rows != null && rows.removeIf(held -> held.sameRow(key)) && rows.isEmpty()) {
                waiting.remove(row.shardKey());
                size = waiting.size();
                return true;
            }
            return false;
        }
    }

    /**
     * Replaces what waits with the shard's failed pending rows as the table has them: a hold whose
     * row was finished by someone else (say, by hand) is dropped instead of holding its key forever.
     */
    synchronized void reload(List<RowKey> failed) {
        waiting.clear();
        failed.forEach(this::hold);
        size = waiting.size();
    }

    /** Whether the task keeps per-key order. */
    boolean ordered() {
        return ordered;
    }

    /** How many keys wait. */
    int size() {
        return size;
    }
}
