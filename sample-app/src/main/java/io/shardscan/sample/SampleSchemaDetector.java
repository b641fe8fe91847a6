package io.shardscan.sample;

import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/**
 * Makes the sharded variant's schema ({@link ShardedOrders.Schema}) a database initializer, so that its
 * tables exist before the scan engine, which depends on database initialization, checks them at startup.
 * Registered in {@code META-INF/spring.factories}, as an application's own initializer is.
 */
class SampleSchemaDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(ShardedOrders.Schema.class);
    }
}
