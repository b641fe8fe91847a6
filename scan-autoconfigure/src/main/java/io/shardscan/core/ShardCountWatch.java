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

    ShardCountWatch(String task) {
        this.task = task;
    }

    /** The conflict the last tick found; {@code null} when none. */
    @Nullable
    ShardCountConflict conflict() {
        return conflict;
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
