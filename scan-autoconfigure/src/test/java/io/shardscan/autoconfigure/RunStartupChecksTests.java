package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.RunMode;
import io.shardscan.testsupport.StartupProblems;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code scan.tasks.<name>.run} at startup, on H2: {@code until-empty} starts; {@code once} and
 * {@code follow} belong to range mode and fail in Boot's "APPLICATION FAILED TO START" form; a
 * schema from before runs (a development build before 0.1.0) fails naming the {@code ALTER TABLE}
 * to run, only for a task that keeps runs.
 */
class RunStartupChecksTests {

    private static final String TASK = "scan.tasks.orders.";

    /** scan_fence and scan_task as they were before runs (scan_fence with the later shards column). */
    private static final String[] OLD_TABLES = {
        "CREATE TABLE scan_lease (task VARCHAR(64) NOT NULL, shard INT NOT NULL, owner VARCHAR(128),"
                + " epoch BIGINT NOT NULL, expires_at TIMESTAMP, PRIMARY KEY (task, shard))",
        "CREATE TABLE scan_member (task VARCHAR(64) NOT NULL, node VARCHAR(128) NOT NULL,"
                + " heartbeat_at TIMESTAMP NOT NULL, counters VARCHAR(100), PRIMARY KEY (task, node))",
        "CREATE TABLE scan_fence (task VARCHAR(64) NOT NULL, shard INT NOT NULL, epoch BIGINT NOT NULL,"
                + " owner VARCHAR(128), shards INT, PRIMARY KEY (task, shard))",
        "CREATE TABLE scan_task (task VARCHAR(64) NOT NULL PRIMARY KEY, paused SMALLINT NOT NULL,"
                + " changed_by VARCHAR(128), changed_at TIMESTAMP)"
    };

    private ApplicationContextRunner runner(String url) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + url,
                        TASK + "table=tb_order",
                        TASK + "id-column=order_id",
                        TASK + "shard-key-column=user_id")
                .withUserConfiguration(Handler.class);
    }

    @Test
    void untilEmptyStartsAndForeverIsTheDefault() {
        runner(OrderDatabase.create())
                .withPropertyValues(TASK + "run=until-empty")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ScanEngine.class).task("orders").runMode())
                            .isEqualTo(RunMode.UNTIL_EMPTY);
                });
        runner(OrderDatabase.create()).run(context -> assertThat(
                        context.getBean(ScanEngine.class).task("orders").runMode())
                .isEqualTo(RunMode.FOREVER));
    }

    @Test
    void onceAndFollowAreForRangeModeOnly() {
        for (String run : List.of("once", "follow")) {
            runner(OrderDatabase.create())
                    .withPropertyValues(TASK + "run=" + run)
                    .run(context -> {
                        assertThat(StartupProblems.of(context))
                                .singleElement()
                                .asString()
                                .startsWith("scan.tasks.orders.run is " + run
                                        + ", which only a range task has: for a job over the table's ids (no"
                                        + " status column needed) set scan.tasks.orders.mode: range;")
                                .contains("set run: until-empty, or remove run");
                        FailureAnalysis analysis = new ScanFailureAnalyzer().analyze(context.getStartupFailure());
                        assertThat(analysis).isNotNull();
                        assertThat(analysis.getDescription())
                                .startsWith("Shardscan cannot start:")
                                .contains("scan.tasks.orders.run is " + run);
                    });
        }
    }

    @Test
    void aSchemaFromBeforeRunsFailsAnUntilEmptyTaskNamingTheStatementsToAddTheColumns() {
        String url = OrderDatabase.create();
        execute(url, OLD_TABLES);
        runner(url)
                .withPropertyValues("scan.jdbc.initialize-schema=never", TASK + "run=until-empty")
                .run(context -> assertThat(StartupProblems.of(context))
                        .anySatisfy(p -> assertThat(p)
                                .startsWith(
                                        "Shardscan's table scan_task lacks column run_cursor, run_dead, run_ended_at,")
                                .contains("ALTER TABLE scan_task ADD COLUMN run_range_size BIGINT;")
                                .contains("scan.jdbc.initialize-schema=always")
                                .contains("ALTER TABLE scan_task ADD COLUMN run_id BIGINT;")
                                .contains("ALTER TABLE scan_task ADD COLUMN run_started_at TIMESTAMP;"))
                        .anySatisfy(p -> assertThat(p)
                                .startsWith("Shardscan's table scan_fence lacks column run_dead, run_failed, run_id,"
                                        + " run_processed")
                                .contains("ALTER TABLE scan_fence ADD COLUMN run_processed BIGINT;")));
        runner(url).withPropertyValues("scan.jdbc.initialize-schema=never").run(context -> assertThat(context)
                .as("a task that runs forever needs no run columns")
                .hasNotFailed());
    }

    private static void execute(String url, String... statements) {
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    record Order(long orderId, long userId) {}

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }
}
