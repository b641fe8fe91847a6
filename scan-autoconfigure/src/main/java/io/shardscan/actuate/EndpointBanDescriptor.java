package io.shardscan.actuate;

import io.shardscan.core.spi.EndpointBan;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * An endpoint banned at level 2, as {@code /actuator/scan/{task}} shows it. Immutable.
 *
 * @param endpoint the endpoint
 * @param since when it was first banned
 * @param until when the ban ends (a failed probe moves it on)
 * @param lastError the failure that led to the ban or its last renewal
 * @param inForce whether its rows are left out now; {@code false} once the ban ended and a probe
 *     row is being let through
 */
public record EndpointBanDescriptor(
        String endpoint,
        Instant since,
        Instant until,
        @Nullable String lastError,
        boolean inForce) {

    static EndpointBanDescriptor of(EndpointBan ban) {
        return new EndpointBanDescriptor(ban.endpoint(), ban.since(), ban.until(), ban.lastError(), ban.active());
    }
}
