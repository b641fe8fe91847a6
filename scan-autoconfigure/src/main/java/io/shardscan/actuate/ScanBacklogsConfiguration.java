package io.shardscan.actuate;

import io.shardscan.autoconfigure.ScanProperties;
import io.shardscan.core.ScanEngine;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The one background backlog counter that the endpoint and the backlog gauges both read. */
@Configuration(proxyBeanMethods = false)
class ScanBacklogsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ScanBacklogs scanBacklogs(ScanEngine engine, ScanProperties properties) {
        return new ScanBacklogs(engine, properties.getBacklogRefresh());
    }
}
