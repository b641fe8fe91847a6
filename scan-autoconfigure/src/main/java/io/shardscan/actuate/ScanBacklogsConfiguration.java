package io.shardscan.actuate;

import io.shardscan.autoconfigure.ScanProperties;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The one background backlog counter that the endpoint, the backlog gauges and the dashboard all read;
 * imported by each of their auto-configurations.
 */
@Configuration(proxyBeanMethods = false)
public class ScanBacklogsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ScanBacklogs scanBacklogs(ScanEngine engine, ScanProperties properties, ObjectProvider<ScanClock> clock) {
        return new ScanBacklogs(engine, properties.getBacklogRefresh(), clock.getIfAvailable(ScanClock::system));
    }
}
