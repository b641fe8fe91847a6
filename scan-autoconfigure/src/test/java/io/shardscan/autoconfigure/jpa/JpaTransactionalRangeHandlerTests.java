package io.shardscan.autoconfigure.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.RangeView;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.spi.RangeFailure;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import io.shardscan.testsupport.UserTable;
import java.time.Duration;
import javax.sql.DataSource;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * A transactional range handler in a Spring Data JPA application on PostgreSQL: its repository
 * save commits with the range's position in one transaction of the application's
 * {@link JpaTransactionManager}; a save followed by a throw rolls back, and so does a save that
 * Hibernate flushes only at the commit and the database refuses there: the row is recorded failed,
 * the range moves on.
 */
@ServerTests
class JpaTransactionalRangeHandlerTests {

    private static final String DB = "scan_jpa_range";
    private static final String TASK = "scan.tasks.users.";

    final DataSource dataSource = TestServers.postgresDatabase(DB);
    UserTable users;

    @BeforeEach
    void setUp() {
        new OrderTable(dataSource).coordinationTables();
        users = new UserTable(dataSource).recreate();
        users.jdbc().execute("DROP TABLE IF EXISTS receipt");
    }

    private ApplicationContextRunner app() {
        JdbcEndpoint db = TestServers.postgresEndpoint(DB);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        DataJpaRepositoriesAutoConfiguration.class,
                        ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + db.url(),
                        "spring.datasource.username=" + db.user(),
                        "spring.datasource.password=" + db.password(),
                        "spring.jpa.hibernate.ddl-auto=update",
                        "scan.node-id=node-a",
                        TASK + "mode=range",
                        TASK + "table=tb_user",
                        TASK + "id-column=user_id",
                        TASK + "range-size=200",
                        TASK + "page-size=50",
                        TASK + "workers=2",
                        TASK + "tiers[0].retries=0-1",
                        TASK + "tiers[0].interval=200ms")
                .withUserConfiguration(JpaApp.class);
    }

    @Test
    void aSaveCommitsWithTheRangesPositionAndAFailedTryLeavesNone() {
        long inserted = users.insertWithGaps(1, 600, 1);
        app().run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(PlatformTransactionManager.class)).isInstanceOf(JpaTransactionManager.class);
            RangeView view = context.getBean(ScanEngine.class).rangeTask("users");
            await().atMost(TestTime.scaled(Duration.ofSeconds(30)))
                    .until(() -> view.snapshot().run().done());
            Receipts receipts = context.getBean(Receipts.class);
            assertThat(receipts.count()).isEqualTo(inserted - 2);
            assertThat(receipts.existsById(10L))
                    .as("saved, then the handler threw")
                    .isFalse();
            assertThat(receipts.existsById(20L))
                    .as("refused at the commit's flush")
                    .isFalse();
            assertThat(view.recentFailures(10))
                    .extracting(RangeFailure::id, RangeFailure::attempts)
                    .containsExactlyInAnyOrder(Tuple.tuple(10L, 2), Tuple.tuple(20L, 2));
            assertThat(view.recentFailures(10))
                    .filteredOn(f -> f.id() == 20)
                    .singleElement()
                    .satisfies(f -> assertThat(f.error()).containsIgnoringCase("too long"));
            assertThat(view.snapshot().progress().processed()).isEqualTo(inserted - 2);
        });
    }

    record User(long userId, String name) {}

    @Configuration(proxyBeanMethods = false)
    @AutoConfigurationPackage
    @Import(Handler.class)
    static class JpaApp {}

    static class Handler {

        private final Receipts receipts;

        Handler(Receipts receipts) {
            this.receipts = receipts;
        }

        @ScanTask(value = "users", transactional = true)
        public void handle(User user) {
            // user 20's node is longer than the column (varchar(255)): Hibernate sends the insert only when
            // it flushes, at the commit, after the handler returned
            receipts.save(new Receipt(user.userId(), user.userId() == 20 ? "n".repeat(300) : "node-a"));
            if (user.userId() == 10) {
                throw new IllegalStateException("the receiver said no to " + user.userId());
            }
        }
    }
}
