package io.shardscan.actuate;

import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.autoconfigure.ScanProperties;
import io.shardscan.core.ScanEngine;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * Registers the {@code scan} actuator endpoint, its HTTP extension and the background backlog
 * counter it reads, when the endpoint is available (enabled and exposed over HTTP or JMX).
 */
@AutoConfiguration(after = ScanAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(ScanEngine.class)
@ConditionalOnAvailableEndpoint(ScanEndpoint.class)
@EnableConfigurationProperties(ScanProperties.class)
@Import(ScanBacklogsConfiguration.class)
public class ScanEndpointAutoConfiguration {

    private static final System.Logger log = System.getLogger(ScanEndpointAutoConfiguration.class.getName());

    // Writes are on with management.endpoint.scan.access=unrestricted: one switch, Boot's own
    @Bean
    @ConditionalOnMissingBean
    ScanEndpoint scanEndpoint(
            ScanEngine engine, ScanBacklogs backlogs, ScanProperties properties, Environment environment) {
        boolean deprecated = properties.getEndpoint().isWriteEnabled();
        if (deprecated) {
            log.log(
                    System.Logger.Level.WARNING,
                    ScanEndpointAccess.DEPRECATED_PROPERTY + " is deprecated: set " + ScanEndpointAccess.PROPERTY
                            + "=unrestricted instead, the one switch of the scan endpoint's write operations");
        }
        return new ScanEndpoint(engine, backlogs, ScanEndpointAccess.writesEnabled(environment, deprecated));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(ScanEndpoint.class)
    @ConditionalOnAvailableEndpoint(endpoint = ScanEndpoint.class, exposure = EndpointExposure.WEB)
    ScanEndpointWebExtension scanEndpointWebExtension(ScanEndpoint endpoint) {
        return new ScanEndpointWebExtension(endpoint);
    }
}
