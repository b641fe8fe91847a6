package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.task.ScanContext;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.jdbc.JdbcRangeFailures;
import io.shardscan.jdbc.JdbcRangeLedger;
import io.shardscan.jdbc.JdbcRangeTable;
import io.shardscan.jdbc.JdbcTaskRuns;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.StartupProblems;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.UserTable;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code @ScanTask(transactional = true)} on a range task through the starter: its JdbcTemplate's
 * inserts join the transaction of the application's transaction manager that commits the range's
 * position, a try that throws leaves none; range stores that cannot commit the position in that
 * transaction (an application's own {@link RangeStores} bean without transactions) fail startup,
 * naming the cause and the fixes.
 */
class TransactionalRangeStartupTests {

    private static final JdbcEndpoint DB = TestServers.h2Endpoint("range_transactional");
    private static final String TASK = "scan.tasks.notify.";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    ScanAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=" + DB.url(),
                    "spring.datasource.username=" + DB.user(),
                    "scan.node-id=solo",
                    TASK + "mode=range",
                    TASK + "table=tb_user",
                    TASK + "id-column=user_id",
                    TASK + "range-size=300",
                    TASK + "page-size=50",
                    TASK + "workers=2",
                    TASK + "tiers[0].retries=0-1",
                    TASK + "tiers[0].interval=200ms");

    private UserTable users;

    @BeforeEach
    void setUp() {
        users = new UserTable(TestServers.h2("range_transactional")).recreate();
    }

    /** Inserts each user's effect with the application's JdbcTemplate; fails user 10 after its insert. */
    static class Notifier {

        private final JdbcTemplate jdbc;

        Notifier(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @ScanTask(value = "notify", transactional = true)
        public void notify(Map<String, Object> user, ScanContext ctx) {
            long id = ((Number) user.get("user_id")).longValue();
            jdbc.update("INSERT INTO notified (user_id, node, epoch) VALUES (?, ?, ?)", id, ctx.node(), ctx.epoch());
            if (id == 10) {
                throw new IllegalStateException("no address for " + id);
            }
        }
    }

    /** The same without transactional. */
    static class PlainNotifier {

        @ScanTask("notify")
        public void notify(Map<String, Object> user) {}
    }

    /** Range stores of the application's own, built without transactions. */
    @Configuration(proxyBeanMethods = false)
    static class OwnStores {

        @Bean
        RangeStores ownRangeStores(DataSource dataSource) {
            return new RangeStores(
                    new JdbcTaskRuns(dataSource, Engines.STATEMENT_TIMEOUT),
                    new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT),
                    new JdbcRangeLedger(dataSource, Engines.STATEMENT_TIMEOUT),
                    new JdbcRangeTable(dataSource, Engines.STATEMENT_TIMEOUT),
                    new JdbcRangeFailures(dataSource, Engines.STATEMENT_TIMEOUT));
        }
    }

    @Test
    void aTransactionalRangeHandlersWritesCommitWithItsRangesPosition() {
        long inserted = users.insertWithGaps(1, 1_000, 1);
        runner.withBean(Notifier.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RangeStores.class).transactions()).isNotNull();
            ScanEngine engine = context.getBean(ScanEngine.class);
            await().until(() -> engine.rangeTask("notify").snapshot().run().done());
            assertThat(engine.rangeTask("notify").recentFailures(10))
                    .extracting(RangeFailure::id)
                    .containsExactly(10L);
            assertThat(users.missed()).as("user 10, whose tries rolled back").isEqualTo(1);
            assertThat(users.duplicates()).isZero();
            assertThat(engine.rangeTask("notify").snapshot().progress().processed())
                    .isEqualTo(inserted - 1);
        });
    }

    @Test
    void rangeStoresWithoutTransactionsFailStartupOnlyForATransactionalHandler() {
        runner.withBean(Notifier.class)
                .withUserConfiguration(OwnStores.class)
                // another problem, reported with it
                .withPropertyValues(TASK + "follow-grace=20s")
                .run(context -> assertThat(StartupProblems.of(context))
                        .hasSize(2)
                        .anySatisfy(p -> assertThat(p).startsWith("scan.tasks.notify.follow-grace is set"))
                        .anySatisfy(p -> assertThat(p)
                                .startsWith("scan.tasks.notify: @ScanTask(\"notify\", transactional = true) commits"
                                        + " each row with its range's position in one transaction, which these range"
                                        + " stores cannot:")
                                .contains("a RangeStores bean of the application's built without one")
                                .contains("Remove that bean")
                                .contains("withTransactions(new JdbcRangeTransactions(")
                                .endsWith("or remove transactional = true")));
        runner.withBean(PlainNotifier.class)
                .withUserConfiguration(OwnStores.class)
                .run(context -> assertThat(context).hasNotFailed());
    }
}
