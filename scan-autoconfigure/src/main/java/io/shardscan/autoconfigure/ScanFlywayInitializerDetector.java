package io.shardscan.autoconfigure;

import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;

/**
 * Makes {@link ScanFlywayInitializer} a database initializer in Boot's order: after the application's
 * Flyway (detector order 0 and 1) and Liquibase (0), so that theirs, without a baseline setting, meet
 * a schema without Shardscan's tables on a first start; before the SQL scripts
 * ({@code LOWEST_PRECEDENCE - 100}) and before every bean that depends on database initialization,
 * the engine among them. Registered in {@code META-INF/spring.factories}.
 */
class ScanFlywayInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(ScanFlywayInitializer.class);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 200;
    }
}
