package io.shardscan.core.spi;

import io.shardscan.core.TaskView;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Which failed or dead rows of a task a requeue puts back to pending with retry count 0, due at once:
 * some rows by id, every row of one last error, or all of them. Immutable.
 *
 * @param dead {@code true} for dead rows, {@code false} for pending rows that failed before
 * @param ids the rows' ids, whole numbers or their decimal text ({@link TaskView#requeue} gives the store
 *     {@code Long}s); empty unless the requeue is by id
 * @param byError whether the requeue takes the rows whose last error is {@code error}
 * @param error the last error of the rows to take, digits aside: every row whose error differs only in its
 *     runs of digits is taken, as {@link FailureGroup} groups them ({@code null}: rows without one);
 *     unused unless {@code byError}
 */
public record Requeue(
        boolean dead,
        List<Object> ids,
        boolean byError,
        @Nullable String error) {

    /** The most ids one requeue by id takes. */
    public static final int MAX_IDS = 1000;

    public Requeue {
        ids = List.copyOf(ids);
        if (ids.size() > MAX_IDS) {
            throw new IllegalArgumentException("a requeue by id takes at most " + MAX_IDS + " ids (was " + ids.size()
                    + "): requeue by error or all instead");
        }
    }

    /** The given rows. */
    public static Requeue rows(boolean dead, List<?> ids) {
        Objects.requireNonNull(ids, "ids");
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("a requeue by id needs at least one id");
        }
        return new Requeue(dead, List.copyOf(ids), false, null);
    }

    /** Every row whose last error is {@code error} ({@code null}: rows without one). */
    public static Requeue withError(boolean dead, @Nullable String error) {
        return new Requeue(dead, List.of(), true, error);
    }

    /** Every failed (or dead) row. */
    public static Requeue all(boolean dead) {
        return new Requeue(dead, List.of(), false, null);
    }
}
