package io.shardscan.dashboard;

import io.shardscan.actuate.ScanBacklogs;
import io.shardscan.actuate.ScanBacklogsConfiguration;
import io.shardscan.actuate.ScanEndpoint;
import io.shardscan.actuate.ScanEndpointAccess;
import io.shardscan.actuate.ScanEndpointAutoConfiguration;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.autoconfigure.ScanProperties;
import io.shardscan.core.ScanEngine;
import java.util.regex.Pattern;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Serves the dashboard under {@code scan.dashboard.path} (default {@code /scan}) when
 * {@code scan.dashboard.enabled=true} in a servlet web application with a scan engine: the page and its
 * scripts from this jar, a JSON API over the scan endpoint's engine and cached backlog, and a ring
 * buffer of every node's rows/s.
 */
@AutoConfiguration(after = {ScanAutoConfiguration.class, ScanEndpointAutoConfiguration.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(WebMvcConfigurer.class)
@ConditionalOnBean(ScanEngine.class)
@ConditionalOnProperty(prefix = "scan.dashboard", name = "enabled", havingValue = "true")
@EnableConfigurationProperties({DashboardProperties.class, ScanProperties.class})
@Import(ScanBacklogsConfiguration.class)
public final class DashboardAutoConfiguration {

    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

    @Bean
    RateHistory scanDashboardRateHistory(DashboardProperties properties) {
        return new RateHistory(properties.getRateSamples());
    }

    @Bean
    RateSampler scanDashboardRateSampler(ScanEngine engine, RateHistory history, DashboardProperties properties) {
        return new RateSampler(engine, history, properties.getRateSample());
    }

    @Bean
    DashboardWriteGuard scanDashboardWriteGuard(
            DashboardProperties dashboard, ScanProperties scan, Environment environment) {
        checkPath(dashboard.getPath());
        return new DashboardWriteGuard(dashboard.isWriteEnabled()
                || ScanEndpointAccess.writesEnabled(
                        environment, scan.getEndpoint().isWriteEnabled()));
    }

    @Bean
    DashboardApiController scanDashboardApiController(
            ScanEngine engine,
            ScanBacklogs backlogs,
            RateHistory history,
            DashboardWriteGuard guard,
            DashboardProperties dashboard) {
        // the dashboard's own view of the same engine and backlog cache as /actuator/scan, with its own write switch
        ScanEndpoint endpoint = new ScanEndpoint(engine, backlogs, guard.writeEnabled());
        return new DashboardApiController(
                endpoint, history, guard, dashboard.getRateSample().toMillis() / 1000.0);
    }

    @Bean
    FailedRowsController scanDashboardFailedRowsController(ScanEngine engine, DashboardWriteGuard guard) {
        return new FailedRowsController(engine, guard);
    }

    @Bean
    DashboardPageController scanDashboardPageController() {
        return new DashboardPageController();
    }

    @Bean
    WebMvcConfigurer scanDashboardResources(DashboardProperties properties) {
        String path = properties.getPath();
        return new WebMvcConfigurer() {
            @Override
            public void addResourceHandlers(ResourceHandlerRegistry registry) {
                registry.addResourceHandler(path + "/assets/**")
                        .addResourceLocations("classpath:/" + DashboardPageController.STATIC + "assets/");
            }
        };
    }

    static void checkPath(String path) {
        if (!PATH.matcher(path).matches()) {
            throw new IllegalArgumentException("scan.dashboard.path must start with / and not end with one, with"
                    + " letters, digits, '.', '_', '~' and '-' between slashes (was '" + path + "'), e.g. /scan");
        }
    }
}
