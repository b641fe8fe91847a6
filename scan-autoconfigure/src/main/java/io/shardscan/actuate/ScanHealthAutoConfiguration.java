package io.shardscan.actuate;

import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.ScanEngine;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/** Registers {@link ScanHealthIndicator} as the {@code scan} health contributor. */
@AutoConfiguration(after = ScanAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(ScanEngine.class)
@ConditionalOnEnabledHealthIndicator("scan")
public class ScanHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "scanHealthIndicator")
    ScanHealthIndicator scanHealthIndicator(ScanEngine engine) {
        return new ScanHealthIndicator(engine);
    }
}
