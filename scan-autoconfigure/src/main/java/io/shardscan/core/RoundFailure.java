package io.shardscan.core;

import io.shardscan.core.task.Tier;
import java.time.Duration;

/**
 * When the cursor of a round that failed is due again: the one rule for every failed round,
 * whatever threw (a store exception, or an {@link Error} such as a {@code NoClassDefFoundError}
 * after the jar was replaced under a running node). Stateless.
 */
final class RoundFailure {

    /** A round that failed before any handler ran fetches again after this: nothing ran twice. */
    static final Duration REFETCH = Duration.ofSeconds(1);

    /**
     * A round that failed after its handlers ran (their outcomes may be unwritten), or with an
     * {@link Error}, waits at least this long, or its tier's interval when longer: those rows are
     * fetched and handled again, and must not be in a loop.
     */
    static final Duration BACK_OFF = Duration.ofSeconds(10);

    private RoundFailure() {}

    /** How long after the failure the tier's cursor is due again. */
    static Duration retryAfter(Throwable failure, boolean handlersRan, Tier tier) {
        if (handlersRan || failure instanceof Error) {
            return tier.interval().compareTo(BACK_OFF) > 0 ? tier.interval() : BACK_OFF;
        }
        return REFETCH;
    }
}
