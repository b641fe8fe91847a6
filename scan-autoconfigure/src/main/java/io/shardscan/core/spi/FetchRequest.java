package io.shardscan.core.spi;

import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.RetryRules;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One page to read, as {@link RetryRules} decided it: a shard, a tier's retry range, how long its
 * failed rows rest and a keyset position: the id alone, or, for a task with a due-at column,
 * the due time and the id. Immutable.
 *
 * @param shard the logical shard
 * @param minRetries the lowest retry count, inclusive
 * @param maxRetries the highest retry count, inclusive ({@link Integer#MAX_VALUE} for an open last tier)
 * @param failedRest rows with a retry count above 0 only when last updated at least this long ago by
 *     the store's own clock, which also stamped that update (never a node's clock: nodes' clocks
 *     differ); {@code null} when the range holds fresh rows only, which are always due
 * @param afterDue for a task with a due-at column, only rows due after this instant, or due at it
 *     with an id greater than {@code afterId}; {@code null} at the start of a pass
 * @param afterId only rows whose id is greater (with {@code afterDue}: see there), for a whole-number id
 * @param afterText for a text or UUID id, only rows whose id's text is greater in binary order (see
 *     {@link KeyType#TEXT}; with {@code afterDue}: see there), instead of {@code afterId}; {@code null}
 *     at the start of a pass and for a whole-number id
 * @param limit at most this many rows
 * @param excludedEndpoints for a task with an endpoint column, the endpoints whose rows are left
 *     out (banned ones); rows whose endpoint is NULL are never left out; empty for none
 */
public record FetchRequest(
        int shard,
        int minRetries,
        int maxRetries,
        @Nullable Duration failedRest,
        @Nullable Instant afterDue,
        long afterId,
        @Nullable String afterText,
        int limit,
        List<String> excludedEndpoints) {

    public FetchRequest {
        excludedEndpoints = List.copyOf(excludedEndpoints);
    }

    /** The same request leaving out {@code endpoints} instead. */
    public FetchRequest withExcludedEndpoints(List<String> endpoints) {
        return new FetchRequest(
                shard, minRetries, maxRetries, failedRest, afterDue, afterId, afterText, limit, endpoints);
    }

    /** A request after a whole-number id. */
    public FetchRequest(
            int shard,
            int minRetries,
            int maxRetries,
            @Nullable Duration failedRest,
            @Nullable Instant afterDue,
            long afterId,
            int limit,
            List<String> excludedEndpoints) {
        this(shard, minRetries, maxRetries, failedRest, afterDue, afterId, null, limit, excludedEndpoints);
    }

    /** A request that leaves no endpoint out. */
    public FetchRequest(
            int shard,
            int minRetries,
            int maxRetries,
            @Nullable Duration failedRest,
            @Nullable Instant afterDue,
            long afterId,
            int limit) {
        this(shard, minRetries, maxRetries, failedRest, afterDue, afterId, limit, List.of());
    }

    /** A request by id alone, for a task without a due-at column. */
    public FetchRequest(
            int shard, int minRetries, int maxRetries, @Nullable Duration failedRest, long afterId, int limit) {
        this(shard, minRetries, maxRetries, failedRest, null, afterId, limit);
    }
}
