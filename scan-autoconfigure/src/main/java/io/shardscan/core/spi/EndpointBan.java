package io.shardscan.core.spi;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A level-2 ban of one endpoint, as the shared {@link EndpointBans} store holds it. Immutable.
 *
 * @param endpoint the endpoint, as its column's value reads as text
 * @param since when it was first banned (kept when a failed probe renews the ban)
 * @param until when the ban ends, by the store's clock
 * @param lastError the failure that led to the ban or to its last renewal
 * @param active whether the ban is still in force by the store's clock; an ended ban stays listed
 *     until a probe row lifts it
 */
public record EndpointBan(
        String endpoint,
        Instant since,
        Instant until,
        @Nullable String lastError,
        boolean active) {}
