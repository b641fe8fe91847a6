package io.shardscan.sample;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the demo.
 *
 * @param seedOrders orders inserted at startup when tb_order is empty
 * @param failureRate the fraction of sends, 0.0 to 1.0, that throw
 * @param sendLatency how long one send takes
 */
@ConfigurationProperties("sample")
public record SampleProperties(Integer seedOrders, Double failureRate, Duration sendLatency) {

    public SampleProperties {
        seedOrders = seedOrders == null ? 1000 : seedOrders;
        failureRate = failureRate == null ? 0.0 : failureRate;
        sendLatency = sendLatency == null ? Duration.ZERO : sendLatency;
        if (seedOrders < 0) {
            throw new IllegalArgumentException("sample.seed-orders must be 0 or more (was " + seedOrders + ")");
        }
        if (failureRate < 0 || failureRate > 1) {
            throw new IllegalArgumentException("sample.failure-rate must lie in 0.0..1.0 (was " + failureRate + ")");
        }
    }
}
