package io.shardscan.actuate;

import io.shardscan.core.RejoinHoldStatus;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * This node holds back after it dropped out of a task's members and came back ({@code scan.rejoin-hold}):
 * it takes no shard the others hold until {@code until}. Immutable.
 *
 * @param state one line, e.g. {@code holding back until 2026-11-28T21:50:00Z, rejoined 3 times in PT10M}
 * @param until when the hold ends, by this node's clock
 * @param rejoins how many times this node rejoined within {@code window}, this time included
 * @param window how far back rejoins count ({@code scan.rejoin-window})
 */
public record RejoinHoldDescriptor(String state, Instant until, int rejoins, Duration window) {

    static @Nullable RejoinHoldDescriptor of(@Nullable RejoinHoldStatus hold) {
        return hold == null
                ? null
                : new RejoinHoldDescriptor(hold.describe(), hold.until(), hold.rejoins(), hold.window());
    }
}
