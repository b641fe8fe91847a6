package io.shardscan.jdbc;

import io.shardscan.core.InMemoryEndpointBans;
import io.shardscan.core.ScanClock;
import io.shardscan.core.spi.EndpointBans;
import java.time.Duration;
import java.time.Instant;

class InMemoryEndpointBansTests extends EndpointBansContractTests {

    /** The system clock, moved ahead by what {@link #ageTrips} let pass. */
    private volatile Duration ahead = Duration.ZERO;

    private final EndpointBans store = new InMemoryEndpointBans(new ScanClock() {
        @Override
        public Instant now() {
            return Instant.now().plus(ahead);
        }

        @Override
        public long nanos() {
            return System.nanoTime() + ahead.toNanos();
        }
    });

    @Override
    protected EndpointBans createStore() {
        return store;
    }

    @Override
    protected void ageTrips(String task) {
        ahead = ahead.plusHours(1);
    }
}
