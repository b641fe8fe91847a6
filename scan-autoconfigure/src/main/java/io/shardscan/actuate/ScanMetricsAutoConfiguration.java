package io.shardscan.actuate;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Registers {@link ScanMetrics}, both the engine's listener and a {@link MeterBinder}, when the
 * application has a {@link MeterRegistry}.
 */
@AutoConfiguration(
        after = {ScanAutoConfiguration.class, ScanEndpointAutoConfiguration.class},
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean({ScanEngine.class, MeterRegistry.class})
@Import(ScanBacklogsConfiguration.class)
public class ScanMetricsAutoConfiguration {

    // The engine is built with this listener in it, so the metrics reach the engine only when bound;
    // the backlog gauges read the background counter's last result, never the database, and age it by
    // the engine's clock, which stamped it.
    @Bean
    @ConditionalOnMissingBean
    ScanMetrics scanMetrics(
            ObjectProvider<ScanEngine> engine, ObjectProvider<ScanBacklogs> backlogs, ObjectProvider<ScanClock> clock) {
        return new ScanMetrics(
                engine::getIfAvailable,
                task -> {
                    ScanBacklogs counter = backlogs.getIfAvailable();
                    return counter == null ? null : counter.count(task);
                },
                clock.getIfAvailable(ScanClock::system));
    }
}
