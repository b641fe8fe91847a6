package io.shardscan.core;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A row's shard key and id, as a store reports rows without reading them whole.
 *
 * @param shardKey the row's shard key
 * @param id the row's id
 * @param dueAt when the row became due, for a task with a due-at column; {@code null} otherwise
 */
public record RowKey(long shardKey, long id, @Nullable Instant dueAt) {

    /** A row of a task without a due-at column. */
    public RowKey(long shardKey, long id) {
        this(shardKey, id, null);
    }
}
