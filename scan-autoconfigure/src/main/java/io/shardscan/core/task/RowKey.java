package io.shardscan.core.task;

import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A row's shard key, id and place in the fetch order, as a store reports rows without reading them
 * whole.
 *
 * @param shardKey the row's shard key
 * @param id the row's id, or for a text or UUID id the number the engine tells it apart by (see {@link Row})
 * @param dueAt when the row became due, for a task with a due-at column; {@code null} otherwise
 * @param textId the text of a text or UUID id; {@code null} for a whole-number id
 */
public record RowKey(
        long shardKey,
        long id,
        @Nullable Instant dueAt,
        @Nullable String textId) {

    /**
     * The fetch order: due time (absent without a due-at column), then id: a text id by its text in
     * binary order, as the store's fetch orders it (see {@link KeyType#TEXT}), a whole-number id as a number.
     */
    public static final Comparator<RowKey> ORDER = Comparator.comparing(
                    RowKey::dueAt, Comparator.nullsFirst(Comparator.<Instant>naturalOrder()))
            .thenComparing(RowKey::textId, Comparator.nullsFirst(Comparator.<String>naturalOrder()))
            .thenComparingLong(RowKey::id);

    /** A row with a whole-number id. */
    public RowKey(long shardKey, long id, @Nullable Instant dueAt) {
        this(shardKey, id, dueAt, null);
    }

    /** A row with a whole-number id, of a task without a due-at column. */
    public RowKey(long shardKey, long id) {
        this(shardKey, id, null);
    }

    /** Whether {@code other} names the same row: the same id, whatever its due time. */
    public boolean sameRow(RowKey other) {
        return id == other.id && Objects.equals(textId, other.textId);
    }
}
