package io.shardscan.autoconfigure;

import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when leases should live in Redis: {@code scan.coordinator=redis}, or {@code auto} (the
 * default) with Redis connection details configured and no static node count. Spring Boot creates
 * a connection factory for localhost whenever Spring Data Redis is on the classpath, so its mere
 * presence does not mean a Redis is there to use.
 */
class RedisCoordinatorCondition extends SpringBootCondition {

    private static final List<String> CONNECTION_PROPERTIES = List.of(
            "spring.data.redis.host",
            "spring.data.redis.url",
            "spring.data.redis.cluster.nodes",
            "spring.data.redis.sentinel.master");

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
                .orElseGet(() -> ConditionOutcome.noMatch("no spring.data.redis connection configured"));
    }
}
