package io.shardscan.core.spi;

import java.time.Instant;

/**
 * A row of a range task that failed every in-place try: recorded so that its range moves on, and run
 * again by a requeue. Immutable.
 *
 * @param id the row's id
 * @param error the last error, as the store keeps it
 * @param attempts how many times the handler ran for it
 * @param failedAt when it was recorded, by the store's clock (the time of the write for a new one)
 */
public record RangeFailure(long id, String error, int attempts, Instant failedAt) {}
