package io.shardscan.bench;

import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.EndpointBans;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.WakeChannel;
import io.shardscan.redis.RedisEndpointBans;
import io.shardscan.redis.RedisShardCoordinator;
import io.shardscan.redis.RedisWakeChannel;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Spring Boot application with the starter, as a service runs it: {@link SpringApplication}, Shardscan's
 * auto-configuration, {@code scan.*} properties, the application's DataSource beans (the first primary, so
 * Shardscan's own) and a bean with {@code @ScanTask} methods. Leases, wake-ups and endpoint bans in Redis, as
 * the auto-configuration sets them up when {@code spring.data.redis} is configured (here the beans are given,
 * on a connection of the bench's with the starter's command timeout, a third of the lease TTL, and the
 * auto-configuration backs off); or, given no Redis, whatever the auto-configuration picks without one: with
 * {@code scan.coordinator} unset, leases in Shardscan's database (JDBC), wake-ups through PostgreSQL
 * LISTEN/NOTIFY and endpoint bans in the database. Closing it stops the engine.
 */
final class ScanApplication implements AutoCloseable {

    private final ConfigurableApplicationContext context;

    private ScanApplication(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /**
     * Starts the application; returns once the engine runs (its leases are claimed after).
     *
     * @param dataSources DataSource beans by name, the first the primary one
     * @param redis the connection of the Redis beans, or {@code null} for none (the auto-configuration's choice)
     */
    static ScanApplication start(
            Map<String, DataSource> dataSources,
            Object handlers,
            Map<String, Object> properties,
            @Nullable LettuceConnectionFactory redis) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        application.setLogStartupInfo(false);
        application.setRegisterShutdownHook(false);
        application.setDefaultProperties(new LinkedHashMap<>(properties));
        application.addInitializers(context -> {
            GenericApplicationContext beans = (GenericApplicationContext) context;
            boolean first = true;
            for (Map.Entry<String, DataSource> entry : dataSources.entrySet()) {
                boolean primary = first;
                beans.registerBean(entry.getKey(), DataSource.class, entry::getValue, bean -> bean.setPrimary(primary));
                first = false;
            }
            // by its own class: the registry reads the @ScanTask methods of a bean not yet created off its definition
            register(beans, "orderHandlers", handlers);
            if (redis == null) {
                return;
            }
            beans.registerBean(ShardCoordinator.class, () -> new RedisShardCoordinator(redis));
            beans.registerBean(WakeChannel.class, () -> new RedisWakeChannel(redis));
            beans.registerBean(EndpointBans.class, () -> new RedisEndpointBans(redis));
        });
        return new ScanApplication(application.run());
    }

    @SuppressWarnings("unchecked")
    private static <T> void register(GenericApplicationContext beans, String name, T bean) {
        beans.registerBean(name, (Class<T>) bean.getClass(), () -> bean);
    }

    ScanEngine engine() {
        return context.getBean(ScanEngine.class);
    }

    /** The kind of the coordinator the engine runs with, e.g. {@code jdbc} or {@code redis}. */
    String coordinator() {
        return context.getBean(ShardCoordinator.class).kind();
    }

    @Override
    public void close() {
        context.close();
    }

    /** The application's own configuration: nothing but the starter's auto-configuration. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(ScanAutoConfiguration.class)
    static class Application {}
}
