package io.shardscan.jdbc;

import io.shardscan.core.EndpointBans;
import io.shardscan.core.InMemoryEndpointBans;
import io.shardscan.core.ScanClock;

class InMemoryEndpointBansTests extends EndpointBansContractTests {

    private final EndpointBans store = new InMemoryEndpointBans(ScanClock.system());

    @Override
    protected EndpointBans createStore() {
        return store;
    }
}
