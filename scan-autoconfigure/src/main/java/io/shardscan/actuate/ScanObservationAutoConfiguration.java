package io.shardscan.actuate;

import io.micrometer.observation.ObservationRegistry;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.autoconfigure.ScanProperties;
import io.shardscan.core.ScanEngine;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link ScanObservations}, the engine's listener that times rounds (and, with
 * {@code scan.observations.rows=true}, handler calls) as observations, when the application has an
 * {@link ObservationRegistry}.
 */
@AutoConfiguration(
        after = ScanAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ScanEngine.class, ObservationRegistry.class})
public final class ScanObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ScanObservations scanObservations(ObservationRegistry registry, ScanProperties properties) {
        return new ScanObservations(registry, properties.getObservations().isRows());
    }
}
