package io.shardscan.core;

import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rows of one shard whose lanes still run after their round ended (see {@link RunningLanes}):
 * the rows of lanes left running a call to a slow endpoint, from when their round ends until every
 * outcome of those lanes is written back. Later rounds of the shard do not start them again, nor,
 * with per-key order, a later row of their keys. Thread-safe; {@link #snapshot} is cheap while
 * nothing straggles.
 */
final class Stragglers {

    private final boolean ordered;
    /** The ids of the straggling lanes' rows: a later round never starts one, so a row is in one lane only. */
    private final Set<Object> ids = new HashSet<>();

    private final List<List<Row>> lanes = new ArrayList<>();
    private volatile int size;

    /** @param ordered whether the task keeps per-key order: then a straggling row holds its key's later rows */
    Stragglers(boolean ordered) {
        this.ordered = ordered;
    }

    /** The rows of a lane whose round ends while it still runs. */
    synchronized void add(List<Row> rows) {
        lanes.add(rows);
        rows.forEach(row -> ids.add(row.idValue()));
        size = lanes.size();
    }

    /** The lane's outcomes are written back (or given up): its rows may be fetched and started again. */
    synchronized void remove(List<Row> rows) {
        lanes.remove(rows);
        rows.forEach(row -> ids.remove(row.idValue()));
        size = lanes.size();
    }

    /** How many lanes straggle. */
    int size() {
        return size;
    }

    /**
     * What straggles now. A round takes it before its fetch: a row that stops straggling after the
     * snapshot was written back before the fetch could read it, unless it is written after the
     * fetch, when the snapshot still leaves it out; none starts straggling while the round runs.
     */
    Snapshot snapshot() {
        if (size == 0) {
            return Snapshot.NONE;
        }
        synchronized (this) {
            Map<Long, RowKey> firstOfKey = new HashMap<>();
            if (ordered) {
                for (List<Row> lane : lanes) {
                    for (Row row : lane) {
                        firstOfKey.merge(row.shardKey(), row.key(), (a, b) -> RowKey.ORDER.compare(a, b) <= 0 ? a : b);
                    }
                }
            }
            return new Snapshot(Set.copyOf(ids), firstOfKey);
        }
    }

    /** The straggling rows at one moment, and with per-key order the first of each of their keys. */
    static final class Snapshot {

        static final Snapshot NONE = new Snapshot(Set.of(), Map.of());

        private final Set<Object> ids;
        private final Map<Long, RowKey> firstOfKey;

        private Snapshot(Set<Object> ids, Map<Long, RowKey> firstOfKey) {
            this.ids = ids;
            this.firstOfKey = firstOfKey;
        }

        /**
         * The rows of {@code page} a round may start: not straggling, and not behind a straggling row
         * of their key. A row behind one is left unfinished, so its key's later rows wait for the next
         * pass (see {@link TierCursor}).
         */
        List<Row> startable(List<Row> page) {
            if (ids.isEmpty()) {
                return page;
            }
            List<Row> startable = new ArrayList<>(page.size());
            for (Row row : page) {
                RowKey first = firstOfKey.get(row.shardKey());
                if (ids.contains(row.idValue())) {
                    continue;
                }
                if (first == null || RowKey.ORDER.compare(first, row.key()) >= 0) {
                    startable.add(row);
                }
            }
            return startable;
        }
    }
}
