package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.GeneratedShardColumnDialect;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.jdbc.SqlDialect;
import io.shardscan.testsupport.TestServers;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The dialect bean: detected from the database's product name, or the application's own, which a
 * database without a dialect of Shardscan's needs. The application's dialect here lives outside
 * {@code io.shardscan.jdbc}, so this also checks that such a subclass can implement what it must.
 */
class SqlDialectConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ScanAutoConfiguration.class))
            .withPropertyValues("scan.jdbc.initialize-schema=always", "scan.lease-ttl=1s", "scan.renew-interval=200ms");

    @Test
    void detectsTheDialectFromTheDatabasesProductName() {
        runner.withBean(DataSource.class, () -> TestServers.h2("dialect_detected"))
                .run(context -> {
                    assertThat(context).hasSingleBean(ScanEngine.class);
                    assertThat(context.getBean(SqlDialect.class).name()).isEqualTo("h2");
                });
    }

    @Test
    void aDatabaseWithoutADialectFailsStartupNamingTheBean() {
        runner.withBean(DataSource.class, () -> acme(TestServers.h2("dialect_unknown")))
                .run(context -> assertThat(context.getStartupFailure())
                        .rootCause()
                        .hasMessageContaining("Database 'AcmeDB' is not supported")
                        .hasMessageContaining("define a bean of a SqlDialect subclass"));
    }

    @Test
    void anApplicationsDialectBeanReplacesDetection() {
        AcmeDialect dialect = new AcmeDialect();
        runner.withBean(DataSource.class, () -> acme(TestServers.h2("dialect_bean")))
                .withBean(SqlDialect.class, () -> dialect)
                .run(context -> {
                    assertThat(context).hasSingleBean(ScanEngine.class);
                    assertThat(context).getBean(SqlDialect.class).isSameAs(dialect);
                    // the store runs its statements in the application's dialect: detection would have failed
                    TaskStore store = context.getBean(TaskStore.class);
                    assertThat(store).isInstanceOf(JdbcTaskStore.class);
                    TaskDefinition task = TaskDefinition.builder("acme")
                            .table("tb_order")
                            .idColumn("order_id")
                            .shardKeyColumn("user_id")
                            .build();
                    assertThat(store.fence(task, 0, "node-a")).isEqualTo(1);
                    assertThat(store.fence(task, 0, "node-b")).isEqualTo(2);
                });
    }

    /** {@code dataSource} as a database whose metadata names a product no dialect of Shardscan's knows. */
    private static DataSource acme(DataSource dataSource) {
        return new DelegatingDataSource(dataSource) {
            @Override
            public Connection getConnection() throws java.sql.SQLException {
                Connection connection = super.getConnection();
                return proxy(
                        Connection.class,
                        connection,
                        (method, args) -> method.getName().equals("getMetaData")
                                ? proxy(
                                        DatabaseMetaData.class,
                                        connection.getMetaData(),
                                        (m, a) -> m.getName().equals("getDatabaseProductName") ? "AcmeDB" : null)
                                : null);
            }
        };
    }

    /** What a proxy answers itself; {@code null} lets the target answer. */
    private interface Answer {
        Object answer(java.lang.reflect.Method method, Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, T target, Answer answer) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, method, args) -> {
            Object own = answer.answer(method, args);
            if (own != null) {
                return own;
            }
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }

    /** An application's dialect for "AcmeDB", which speaks H2's SQL: written outside Shardscan's package. */
    static final class AcmeDialect extends GeneratedShardColumnDialect {

        @Override
        public String name() {
            return "acme";
        }

        @Override
        public String migrationFolder() {
            return "postgresql";
        }

        @Override
        protected String nowPlusMillis() {
            return "DATEADD(MILLISECOND, ?, LOCALTIMESTAMP)";
        }

        @Override
        protected String now() {
            return "LOCALTIMESTAMP";
        }

        @Override
        protected String shareLock() {
            return " FOR UPDATE";
        }

        @Override
        protected String textKeyHash(String key) {
            return "BITAND(CAST(CAST(SUBSTRING(HASH('MD5', CAST(" + key
                    + " AS VARCHAR)) FROM 1 FOR 4) AS INT) AS BIGINT), 4294967295)";
        }

        @Override
        protected String generatedColumn(TaskDefinition task) {
            return "INT GENERATED ALWAYS AS (" + shardOf(task, task.columns().shardKey()) + ")";
        }

        @Override
        protected String redefineShardColumn(TaskDefinition task) {
            return "ALTER TABLE " + task.table() + " ALTER COLUMN "
                    + task.columns().shard() + " " + generatedColumn(task);
        }

        @Override
        protected List<String> archiveTableStatements(TaskDefinition task, String archiveTable) {
            return List.of("CREATE TABLE " + archiveTable + " AS SELECT * FROM " + task.table() + " WITH NO DATA");
        }
    }
}
