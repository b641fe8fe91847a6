package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.testsupport.StartupProblems;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The startup checks on H2: each fails startup (or warns) naming the property, column or table and
 * the fix, and several problems are reported together.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupChecksTests {

    private static final String TASK = "scan.tasks.orders.";

    private ApplicationContextRunner runner(String url, Class<?> handlers) {
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + url,
                        TASK + "table=tb_order",
                        TASK + "id-column=order_id",
                        TASK + "shard-key-column=user_id")
                .withUserConfiguration(handlers);
    }

    private ApplicationContextRunner runner() {
        return runner(OrderDatabase.create(), Handler.class);
    }

    @Test
    void misspelledPropertiesFailWithTheClosestName() {
        runner().withPropertyValues(TASK + "page-sise=50", TASK + "wokers=4", "scan.lease-tll=10s")
                .run(context -> assertThat(StartupProblems.of(context))
                        .anySatisfy(p -> assertThat(p)
                                .contains("scan.tasks.orders.page-sise")
                                .contains("did you mean 'page-size'?"))
                        .anySatisfy(p -> assertThat(p)
                                .contains("scan.tasks.orders.wokers")
                                .contains("did you mean 'workers'?"))
                        .anySatisfy(
                                p -> assertThat(p).contains("scan.lease-tll").contains("did you mean 'lease-ttl'?")));
    }

    @Test
    void unknownPropertiesFarFromAnyNameListTheKnownOnes() {
        runner().withPropertyValues(
                        TASK + "tiers[0].retries=0", TASK + "tiers[0].interval=3s", TASK + "tiers[0].colour=red")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains("scan.tasks.orders.tiers[0].colour is not a Shardscan property")
                        .contains("known here: interval, retries"));
    }

    @Test
    void knownPropertiesInAnySpellingPass() {
        runner().withPropertyValues(TASK + "pageSize=50", TASK + "page_size=50", "scan.jdbc.initialize-schema=embedded")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void durationsWithoutUnitAreSeconds() {
        runner().withPropertyValues(
                        TASK + "tiers[0].retries=0",
                        TASK + "tiers[0].interval=5",
                        "scan.lease-ttl=10",
                        "scan.renew-interval=3")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ScanEngine engine = context.getBean(ScanEngine.class);
                    assertThat(engine.settings().leaseTtl()).isEqualTo(Duration.ofSeconds(10));
                    assertThat(engine.settings().renewInterval()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(engine.task("orders").definition().tiers())
                            .containsExactly(new Tier(0, 0, Duration.ofSeconds(5)));
                });
    }

    @Test
    void theNodeWeightReachesTheEngineAndAWeightOutOfRangeIsRefusedNamingTheProperty() {
        runner().withPropertyValues("scan.node-weight=3").run(context -> assertThat(
                        context.getBean(ScanEngine.class).settings().nodeWeight())
                .isEqualTo(3));
        runner().withPropertyValues("scan.node-weight=0").run(context -> assertThat(StartupProblems.of(context))
                .anySatisfy(p -> assertThat(p).startsWith("scan.node-weight must be between 1 and 100 (was 0)")));
    }

    @Test
    void intervalsBelowTheFloorAreRefusedNamingTheProperty() {
        runner().withPropertyValues(
                        TASK + "tiers[0].retries=0", TASK + "tiers[0].interval=50ms", "scan.renew-interval=20ms")
                .run(context -> assertThat(StartupProblems.of(context))
                        .anySatisfy(p -> assertThat(p)
                                .startsWith("scan.tasks.orders.tiers[0].interval is 50ms, below the floor of 100ms"))
                        .anySatisfy(p ->
                                assertThat(p).startsWith("scan.renew-interval is 20ms, below the floor of 100ms")));
    }

    @Test
    void fenceTableWithoutOwnerColumnFailsNamingTheScript() {
        String url = OrderDatabase.create();
        execute(
                url,
                "CREATE TABLE scan_lease (task VARCHAR(64) NOT NULL, shard INT NOT NULL, owner VARCHAR(128),"
                        + " epoch BIGINT NOT NULL, expires_at TIMESTAMP, PRIMARY KEY (task, shard))",
                "CREATE TABLE scan_member (task VARCHAR(64) NOT NULL, node VARCHAR(128) NOT NULL,"
                        + " heartbeat_at TIMESTAMP NOT NULL, counters VARCHAR(100), PRIMARY KEY (task, node))",
                "CREATE TABLE scan_fence (task VARCHAR(64) NOT NULL, shard INT NOT NULL, epoch BIGINT NOT NULL,"
                        + " PRIMARY KEY (task, shard))",
                "CREATE TABLE scan_task (task VARCHAR(64) NOT NULL PRIMARY KEY, paused SMALLINT NOT NULL,"
                        + " changed_by VARCHAR(128), changed_at TIMESTAMP)");
        runner(url, Handler.class)
                .withPropertyValues("scan.jdbc.initialize-schema=never")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains("Shardscan's table scan_fence lacks column owner")
                        .contains("scan.jdbc.initialize-schema=always")
                        .contains("io/shardscan/db/migration/postgresql"));
    }

    @Test
    void anEndpointTaskWithoutTheBlacklistTablesOrItsColumnFailsNamingBoth() {
        String url = OrderDatabase.create();
        execute(
                url,
                "CREATE TABLE scan_lease (task VARCHAR(64) NOT NULL, shard INT NOT NULL, owner VARCHAR(128),"
                        + " epoch BIGINT NOT NULL, expires_at TIMESTAMP, PRIMARY KEY (task, shard))",
                "CREATE TABLE scan_member (task VARCHAR(64) NOT NULL, node VARCHAR(128) NOT NULL,"
                        + " heartbeat_at TIMESTAMP NOT NULL, counters VARCHAR(100), PRIMARY KEY (task, node))",
                "CREATE TABLE scan_fence (task VARCHAR(64) NOT NULL, shard INT NOT NULL, epoch BIGINT NOT NULL,"
                        + " owner VARCHAR(128), PRIMARY KEY (task, shard))",
                "CREATE TABLE scan_task (task VARCHAR(64) NOT NULL PRIMARY KEY, paused SMALLINT NOT NULL,"
                        + " changed_by VARCHAR(128), changed_at TIMESTAMP)");
        runner(url, Handler.class)
                .withPropertyValues("scan.jdbc.initialize-schema=never", TASK + "endpoint-column=store_id")
                .run(context -> assertThat(StartupProblems.of(context))
                        .anySatisfy(p -> assertThat(p)
                                .contains("Shardscan's table scan_endpoint_trip does not exist (it holds the endpoint"
                                        + " blacklist of tasks with an endpoint-column when no Redis is configured)")
                                .contains("scan.jdbc.initialize-schema=always"))
                        .anySatisfy(p -> assertThat(p).contains("Shardscan's table scan_endpoint_ban does not exist"))
                        .anySatisfy(p -> assertThat(p).containsIgnoringCase("store_id")));
    }

    @Test
    void endpointDurationsWithoutAUnitFailNamingEachAndAnExample() {
        // slow-call: 500 meant as milliseconds would be 500 s (no call ever slow), level2.ban: 5 meant as
        // its default's minutes would be 5 s
        runner().withPropertyValues(
                        TASK + "endpoint-column=user_id",
                        TASK + "slow-call=500",
                        TASK + "level2.window=5",
                        TASK + "level2.ban=5")
                .run(context -> assertThat(StartupProblems.of(context))
                        .contains("scan.tasks.orders.slow-call is '500' without a unit: write it with one, e.g."
                                + " slow-call: 500ms or 2s (max-wait, delay, archive.after, slow-call,"
                                + " level2.window, level2.ban, stall-timeout and schedule.every need a unit, which ms, s, m, h"
                                + " or d makes plain)")
                        .anySatisfy(p -> assertThat(p)
                                .startsWith("scan.tasks.orders.level2.window is '5' without a unit")
                                .contains("e.g. level2.window: 5m"))
                        .anySatisfy(p -> assertThat(p)
                                .startsWith("scan.tasks.orders.level2.ban is '5' without a unit")
                                .contains("e.g. level2.ban: 5m")));
        runner().withPropertyValues(
                        TASK + "endpoint-column=user_id",
                        TASK + "slow-call=500ms",
                        TASK + "level2.window=5m",
                        TASK + "level2.ban=30s")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aStallTimeoutWithoutAUnitFails() {
        // stall-timeout: 5 meant as its default's minutes was bound as 5 ms: every range of a range task
        // was taken over again and again, each time redoing its rows
        runner().withPropertyValues(TASK + "stall-timeout=5")
                .run(context -> assertThat(StartupProblems.of(context)).anySatisfy(p -> assertThat(p)
                        .startsWith("scan.tasks.orders.stall-timeout is '5' without a unit")
                        .contains("e.g. stall-timeout: 5m")));
    }

    @Test
    void columnOfAnUnusableTypeFailsNamingItsTypeAndTheSupportedOnes() {
        String url = OrderDatabase.create();
        execute(url, "ALTER TABLE tb_order ALTER COLUMN status VARCHAR(16)");
        runner(url, Handler.class).run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .containsIgnoringCase("column status (scan.tasks.orders.status-column) is of type")
                .contains("CHARACTER VARYING")
                .contains("whole-number type (BIGINT, INTEGER, SMALLINT"));
    }

    @Test
    void rowTypeComponentWithoutColumnFailsNamingTheColumns() {
        runner(OrderDatabase.create(), MisnamedHandler.class).run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("takes MisnamedOrder, whose component customerName matches no column")
                .containsIgnoringCase("the columns are order_id, user_id, status"));
    }

    @Test
    void rowTypeComponentOfATypeItsColumnCannotBecomeFailsNamingTheTypesThatWork() {
        runner(OrderDatabase.create(), MistypedHandler.class).run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("takes MistypedOrder, whose component updatedAt is Duration, which column")
                .contains("a row holds it as java.sql.Timestamp")
                .contains("Declare updatedAt as Timestamp or a type it converts to (Instant, OffsetDateTime"));
    }

    @Test
    void beanPropertyWithoutColumnFailsNamingIt() {
        runner(OrderDatabase.create(), BeanHandler.class).run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("takes BeanOrder, whose property voucher matches no column"));
    }

    @Test
    void pendingRowsWithoutShardKeyAreWarnedWithCountAndFix(CapturedOutput output) {
        String url = OrderDatabase.create();
        execute(
                url,
                "ALTER TABLE tb_order ALTER COLUMN user_id SET NULL",
                "INSERT INTO tb_order (order_id, user_id, status, updated_at) VALUES"
                        + " (1, NULL, 0, CURRENT_TIMESTAMP), (2, NULL, 0, CURRENT_TIMESTAMP), (3, 5, 0, CURRENT_TIMESTAMP)");
        runner(url, Handler.class).run(context -> {
            assertThat(context).hasNotFailed();
            // in an application the engine writes to the application's logging
            assertThat(output.getOut() + output.getErr())
                    .contains("2 pending rows of tb_order have a NULL shard key (user_id)")
                    .contains("UPDATE tb_order SET user_id = order_id WHERE user_id IS NULL");
        });
    }

    /**
     * The table guide's shard column of 64 shards under a task of 16: rows whose column is 16..63 would
     * never be fetched, so startup fails naming both fixes; the statement it names makes it start,
     * and so does the column under a task of 64 shards.
     */
    @Test
    void aShardColumnOfMoreShardsThanTheTaskFailsNamingBothFixes() {
        String url = OrderDatabase.create();
        execute(
                url,
                "ALTER TABLE tb_order ADD COLUMN scan_shard INT GENERATED ALWAYS AS ("
                        + SchemaDdl.shardOf("user_id", 64) + ")");
        String ddl =
                "ALTER TABLE tb_order ALTER COLUMN scan_shard INT GENERATED ALWAYS AS (MOD(MOD(user_id, 16) + 16, 16))";
        runner(url, Handler.class).withPropertyValues(TASK + "shards=16").run(context -> assertThat(
                        StartupProblems.of(context))
                .singleElement()
                .asString()
                .isEqualTo("scan.tasks.orders: shard column scan_shard of table tb_order is generated as"
                        + " MOD(MOD(\"USER_ID\", 64) + 64, 64), which gives rows the shards 0..63, but"
                        + " scan.tasks.orders.shards is 16: pending rows whose scan_shard is 16 or more are never"
                        + " fetched, so they never run and stay pending without an error. Set"
                        + " scan.tasks.orders.shards=64, or give the column the task's 16 shards:\n  " + ddl));
        runner(url, Handler.class).withPropertyValues(TASK + "shards=64").run(context -> assertThat(context)
                .hasNotFailed());
        execute(url, ddl);
        runner(url, Handler.class).withPropertyValues(TASK + "shards=16").run(context -> assertThat(context)
                .hasNotFailed());
    }

    /** A shard column of 16 shards under a task of 64 loses no row: startup goes on, with a warning. */
    @Test
    void aShardColumnOfFewerShardsThanTheTaskIsWarned(CapturedOutput output) {
        String url = OrderDatabase.create();
        execute(
                url,
                "ALTER TABLE tb_order ADD COLUMN scan_shard INT GENERATED ALWAYS AS ("
                        + SchemaDdl.shardOf("user_id", 16) + ")");
        runner(url, Handler.class).withPropertyValues(TASK + "shards=64").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output.getOut() + output.getErr())
                    .contains("which gives rows the shards 0..15 only, but scan.tasks.orders.shards is 64: shards"
                            + " 16..63 stay empty (no row is lost)")
                    .contains("Set scan.tasks.orders.shards=16, or give the column the task's 64 shards:");
        });
    }

    /**
     * A column redefined for 64 shards under a running node of 16: the startup check passed, so the
     * backlog count is what tells; it counts the rows no shard fetches and warns once, naming the fix.
     */
    @Test
    void rowsOutsideTheShardsAfterStartupAreCountedAndWarned(CapturedOutput output) {
        String url = OrderDatabase.create();
        execute(
                url,
                "ALTER TABLE tb_order ADD COLUMN scan_shard INT GENERATED ALWAYS AS ("
                        + SchemaDdl.shardOf("user_id", 16) + ")");
        runner(url, Handler.class).withPropertyValues(TASK + "shards=16").run(context -> {
            assertThat(context).hasNotFailed();
            execute(
                    url,
                    "ALTER TABLE tb_order ALTER COLUMN scan_shard INT GENERATED ALWAYS AS ("
                            + SchemaDdl.shardOf("user_id", 64) + ")",
                    "INSERT INTO tb_order (order_id, user_id, status, updated_at) VALUES"
                            + " (1, 5, 0, CURRENT_TIMESTAMP), (2, 20, 0, CURRENT_TIMESTAMP), (3, 63, 0, CURRENT_TIMESTAMP)");
            ScanEngine engine = context.getBean(ScanEngine.class);
            assertThat(engine.task("orders").countBacklog().outsideShards()).isEqualTo(2);
            assertThat(engine.task("orders").countBacklog().outsideShards()).isEqualTo(2);
            String log = output.getOut() + output.getErr();
            assertThat(log)
                    .contains(
                            "scan.tasks.orders: 2 pending rows of tb_order have a scan_shard outside 0..15, the shards"
                                    + " of scan.tasks.orders.shards=16: no shard fetches them")
                    .contains("set scan.tasks.orders.shards to the column's modulus, or redefine the column for 16"
                            + " shards");
            assertThat(log.split("2 pending rows of tb_order have a scan_shard outside", -1))
                    .as("warned once, not at every count")
                    .hasSize(2);
        });
    }

    @Test
    void aMissingIndexUnderWarnOffersOnlyOffAndUnderFailWarnOrOff(CapturedOutput output) {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            // warn is the default, so telling the user to set warn would tell them to set what is set
            assertThat(output.getOut() + output.getErr())
                    .contains("lacks an index that keeps its fetches range scans")
                    .contains("or set scan.tasks.orders.index-check=off to silence this")
                    .doesNotContain("index-check=warn|off");
        });
        runner().withPropertyValues(TASK + "index-check=fail").run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .endsWith("or set scan.tasks.orders.index-check=warn|off to start without it"));
    }

    @Test
    void everyProblemIsReportedAtOnceInBootsForm() {
        String url = OrderDatabase.create();
        execute(url, "ALTER TABLE tb_order ALTER COLUMN status VARCHAR(16)");
        runner(url, MisnamedHandler.class)
                .withPropertyValues(TASK + "wokers=4", "scan.renew-interval=5ms")
                .run(context -> {
                    List<String> problems = StartupProblems.of(context);
                    assertThat(problems).hasSize(4);
                    FailureAnalysis analysis = new ScanFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .startsWith("Shardscan cannot start; 4 problems:")
                            .contains("wokers", "scan.renew-interval is 5ms", "status-column", "customerName");
                    assertThat(analysis.getAction()).contains("scan.*");
                });
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

    record MisnamedOrder(long orderId, String customerName) {}

    record MistypedOrder(long orderId, java.time.Duration updatedAt, java.math.BigDecimal userId) {}

    public static class BeanOrder {
        private long orderId;
        private String voucher;

        public long getOrderId() {
            return orderId;
        }

        public void setOrderId(long orderId) {
            this.orderId = orderId;
        }

        public String getVoucher() {
            return voucher;
        }

        public void setVoucher(String voucher) {
            this.voucher = voucher;
        }
    }

    static class Handler {
        @ScanTask("orders")
        public void send(Order order) {}
    }

    static class MisnamedHandler {
        @ScanTask("orders")
        public void send(MisnamedOrder order) {}
    }

    static class MistypedHandler {
        @ScanTask("orders")
        public void send(MistypedOrder order) {}
    }

    static class BeanHandler {
        @ScanTask("orders")
        public void send(List<BeanOrder> orders) {}
    }
}
