package io.shardscan.core;

import java.time.Duration;
import java.time.Instant;

/**
 * This node holds back after it rejoined a task's members ({@code scan.rejoin-hold}): it takes no
 * shard another member holds until {@link #until}, while those keep them. Immutable.
 *
 * @param until when the hold ends, by this node's clock
 * @param rejoins how many times this node rejoined within {@link #window}, this time included
 * @param window how far back rejoins count ({@code scan.rejoin-window})
 */
public record RejoinHoldStatus(Instant until, int rejoins, Duration window) {

    /** One line for an operator, e.g. {@code holding back until 2026-11-28T21:50:00Z, rejoined 3 times in PT10M}. */
    public String describe() {
        return "holding back until " + until + ", rejoined " + rejoins + (rejoins == 1 ? " time" : " times") + " in "
                + window;
    }
}
