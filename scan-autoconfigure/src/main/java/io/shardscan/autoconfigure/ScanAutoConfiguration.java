package io.shardscan.autoconfigure;

import io.shardscan.core.CompositeScanListener;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.ShardCoordinator;
import io.shardscan.core.TaskStore;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.redis.RedisShardCoordinator;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Runs the scan engine on the application's {@link DataSource}: the tasks come from
 * {@code scan.tasks.*} and the {@link io.shardscan.annotation.ScanTask @ScanTask} methods of its
 * beans. Every bean backs off when the application defines its own; {@code scan.enabled=false}
 * turns it all off.
 */
@AutoConfiguration(
        after = DataSourceAutoConfiguration.class,
        afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(DataSourceScriptDatabaseInitializer.class)
@ConditionalOnBooleanProperty(name = "scan.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(ScanProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public class ScanAutoConfiguration {

    /** Leases in Redis when it is configured; registered before the JDBC and static fallbacks. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RedisConnectionFactory.class)
    @Conditional(RedisCoordinatorCondition.class)
    static class RedisCoordinatorConfiguration {

        @Bean
        @ConditionalOnMissingBean(ShardCoordinator.class)
        @ConditionalOnBean(RedisConnectionFactory.class)
        ShardCoordinator scanRedisShardCoordinator(RedisConnectionFactory connectionFactory) {
            return new RedisShardCoordinator(connectionFactory);
        }
    }

    /** Task, shard and epoch in the logging context of every round, where SLF4J is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.slf4j.MDC")
    static class MdcConfiguration {

        @Bean
        @ConditionalOnMissingBean
        MdcScanListener scanMdcListener() {
            return new MdcScanListener();
        }
    }

    @Bean
    @ConditionalOnMissingBean
    ScanClock scanClock() {
        return ScanClock.system();
    }

    @Bean
    @ConditionalOnMissingBean
    TaskStore scanTaskStore(DataSource dataSource) {
        return new JdbcTaskStore(dataSource);
    }

    @Bean
    @ConditionalOnMissingBean
    ShardCoordinator scanShardCoordinator(ScanProperties properties, DataSource dataSource, ScanClock clock) {
        return ScanCoordinators.create(properties, dataSource, clock);
    }

    @Bean
    @ConditionalOnMissingBean
    ScanSchemaInitializer scanSchemaInitializer(DataSource dataSource, ScanProperties properties) {
        return new ScanSchemaInitializer(dataSource, properties.getJdbc().getInitializeSchema());
    }

    @Bean
    @ConditionalOnMissingBean
    ScanTaskRegistry scanTaskRegistry(ConfigurableListableBeanFactory beanFactory) {
        return new ScanTaskRegistry(beanFactory);
    }

    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    ScanEngine scanEngine(
            ScanProperties properties,
            ScanTaskRegistry registry,
            TaskStore store,
            ShardCoordinator coordinator,
            ScanClock clock,
            ObjectProvider<ScanListener> listeners,
            ObjectProvider<ScanEngineCustomizer> customizers) {
        ScanEngineBuilder builder = new ScanEngineBuilder(
                properties, CompositeScanListener.of(listeners.orderedStream().toList()));
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build(registry.tasks(properties.getTasks()), store, coordinator, clock);
    }

    @Bean
    @ConditionalOnMissingBean
    ScanLifecycle scanLifecycle(ScanEngine engine) {
        return new ScanLifecycle(engine);
    }
}
