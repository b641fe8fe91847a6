package io.shardscan.sample;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the demo.
 *
 * @param seedOrders orders inserted at startup when tb_order is empty
 * @param seedUsers users inserted at startup when tb_user is empty, for {@code notify-users}; every
 *     tenth id is left out, a gap as deleted accounts leave
 * @param failureRate the fraction of sends, 0.0 to 1.0, that throw
 * @param sendLatency how long one send takes
 * @param stores how many simulated stores {@code order-sync} pushes orders to, each a small HTTP server
 * @param storesDown the stores whose port refuses connections
 * @param storesSlow the stores that answer each call after 2 s
 */
@ConfigurationProperties("sample")
public record SampleProperties(
        Integer seedOrders,
        Integer seedUsers,
        Double failureRate,
        Duration sendLatency,
        Integer stores,
        List<Integer> storesDown,
        List<Integer> storesSlow) {

    public SampleProperties {
        seedOrders = seedOrders == null ? 1000 : seedOrders;
        seedUsers = seedUsers == null ? 200_000 : seedUsers;
        failureRate = failureRate == null ? 0.0 : failureRate;
        sendLatency = sendLatency == null ? Duration.ZERO : sendLatency;
        stores = stores == null ? 8 : stores;
        storesDown = storesDown == null ? List.of() : List.copyOf(storesDown);
        storesSlow = storesSlow == null ? List.of() : List.copyOf(storesSlow);
        if (stores < 1) {
            throw new IllegalArgumentException("sample.stores must be 1 or more (was " + stores + ")");
        }
        if (seedOrders < 0) {
            throw new IllegalArgumentException("sample.seed-orders must be 0 or more (was " + seedOrders + ")");
        }
        if (seedUsers < 0) {
            throw new IllegalArgumentException("sample.seed-users must be 0 or more (was " + seedUsers + ")");
        }
        if (failureRate < 0 || failureRate > 1) {
            throw new IllegalArgumentException("sample.failure-rate must lie in 0.0..1.0 (was " + failureRate + ")");
        }
    }
}
