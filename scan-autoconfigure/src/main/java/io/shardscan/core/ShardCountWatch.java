package io.shardscan.core;

import io.shardscan.core.spi.ShardCountConflict;
import java.lang.System.Logger.Level;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the last {@link ShardCountConflict} of a task on this node and reports each change once: a
 * WARN line when a conflict begins or changes (other counts or members), an INFO line when it ends.
 * Written on the control thread, read from any.
 */
final class ShardCountWatch {

    private static final System.Logger log = ScanLogging.getLogger(ShardCountWatch.class);

    private final String task;
    private volatile @Nullable ShardCountConflict conflict;
    private volatile int splitParents;
    private volatile int splitInto;

    ShardCountWatch(String task) {
        this.task = task;
    }

    /** The conflict the last tick found; {@code null} when none. */
    @Nullable
    ShardCountConflict conflict() {
        return conflict;
    }

    /**
     * The smaller shard count while nodes of two counts, one a multiple of the other, run the task at
     * once (shards are assigned in it, see {@link ShardCountRule}); 0 otherwise.
     */
    int splitParents() {
        return splitParents;
    }

    /** The larger count of the split {@link #splitParents()} names; 0 when none. */
    int splitInto() {
        return splitInto;
    }

    /** The last tick's split ({@code parents} into {@code into} shards; 0 and 0 when none); an INFO line per change. */
    void seenSplit(int parents, int into) {
        int before = splitInto;
        int beforeParents = splitParents;
        splitParents = into > 0 ? parents : 0;
        splitInto = into;
        if (before == into && beforeParents == splitParents) {
            return;
        }
        if (into > 0) {
            log.log(
                    Level.INFO,
                    "Task " + task + ": nodes of " + parents + " and of " + into + " shards run at once: shards are"
                            + " assigned in " + parents + ", a node of " + into + " holding each of its parents as its "
                            + (into / parents) + " children, until every node runs one count");
        } else if (before > 0) {
            log.log(Level.INFO, "Task " + task + ": every live node runs one shard count again");
        }
    }

    void seen(@Nullable ShardCountConflict now) {
        ShardCountConflict before = conflict;
        conflict = now;
        if (Objects.equals(before, now)) {
            return;
        }
        if (now != null) {
            log.log(Level.WARNING, "Task " + task + ": " + now.describe(task));
        } else {
            log.log(
                    Level.INFO,
                    "Task " + task + ": every live node runs this node's shard count (" + before.here()
                            + ") now; it claims shards again");
        }
    }
}
