package io.shardscan.autoconfigure;

import java.util.List;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Matches when leases should live in Redis: {@code scan.coordinator=redis}, or {@code auto} (the
 * default) with no static node count and Redis configured. Redis counts as configured when one of
 * {@code spring.data.redis.host}, {@code url}, {@code cluster.nodes}, {@code sentinel.master} or
 * {@code masterreplica.nodes} is set, or when a {@code DataRedisConnectionDetails} bean other than
 * Boot's property-backed default exists ({@code @ServiceConnection}, Docker Compose, a bean of the
 * application's). Spring Boot's default details point at localhost whenever Spring Data Redis is on
 * the class path, so those alone do not mean a Redis is there to use. Evaluated when beans are
 * registered, after Boot's Redis auto-configuration, so that the connection details are known.
 */
class RedisCoordinatorCondition extends SpringBootCondition implements ConfigurationCondition {

    static final String CONNECTION_DETAILS =
            "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

    private static final String PROPERTIES_CONNECTION_DETAILS =
            "org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails";

    private static final List<String> CONNECTION_PROPERTIES = List.of(
            "spring.data.redis.host",
            "spring.data.redis.url",
            "spring.data.redis.cluster.nodes",
            "spring.data.redis.sentinel.master",
            "spring.data.redis.masterreplica.nodes");

    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Environment environment = context.getEnvironment();
        String coordinator = environment.getProperty("scan.coordinator", "auto").trim();
        if (coordinator.equalsIgnoreCase("redis")) {
            return ConditionOutcome.match("scan.coordinator=redis");
        }
        if (!coordinator.equalsIgnoreCase("auto")) {
            return ConditionOutcome.noMatch("scan.coordinator=" + coordinator);
        }
        if (environment.containsProperty("scan.node-count")) {
            return ConditionOutcome.noMatch("scan.node-count is set: static sharding");
        }
        return CONNECTION_PROPERTIES.stream()
                .filter(environment::containsProperty)
                .findFirst()
                .map(property -> ConditionOutcome.match(property + " is set"))
                .orElseGet(() -> connectionDetailsBean(context));
    }

    private static ConditionOutcome connectionDetailsBean(ConditionContext context) {
        ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
        if (beanFactory != null && ClassUtils.isPresent(CONNECTION_DETAILS, context.getClassLoader())) {
            Class<?> type = ClassUtils.resolveClassName(CONNECTION_DETAILS, context.getClassLoader());
            for (String name : beanFactory.getBeanNamesForType(type, true, false)) {
                Class<?> beanType = beanFactory.getType(name, false);
                if (beanType != null && !beanType.getName().equals(PROPERTIES_CONNECTION_DETAILS)) {
                    return ConditionOutcome.match("Redis connection details bean '" + name + "'");
                }
            }
        }
        return ConditionOutcome.noMatch("no spring.data.redis connection configured");
    }
}
