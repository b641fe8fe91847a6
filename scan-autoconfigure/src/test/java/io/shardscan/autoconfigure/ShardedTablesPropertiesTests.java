package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.ScanContext;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A sharded task as an application configures it: {@code scan.tasks.X.tables} names the tables by a range,
 * {@code data-sources} says which DataSource bean holds which; Shardscan's own tables are created in the
 * second data source as in its own, and every row of both runs. A data source that is no bean, and a
 * task that sets both {@code table} and {@code tables}, stop startup naming the fix.
 */
class ShardedTablesPropertiesTests {

    static final Queue<String> ran = new ConcurrentLinkedQueue<>();

    private final DataSource home = database();
    private final DataSource second = database();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ScanAutoConfiguration.class))
            .withBean("dataSource", DataSource.class, () -> home, definition -> definition.setPrimary(true))
            .withBean("ordersB", DataSource.class, () -> second)
            .withBean(Orders.class)
            .withPropertyValues(
                    "scan.tasks.orders.tables=tb_o_{00..03}",
                    "scan.tasks.orders.data-sources.dataSource=tb_o_00, tb_o_01",
                    "scan.tasks.orders.data-sources.ordersB=tb_o_{02..03}",
                    "scan.tasks.orders.shards=2",
                    "scan.tasks.orders.id-column=order_id",
                    "scan.tasks.orders.shard-key-column=user_id",
                    "scan.tasks.orders.tiers[0].retries=0",
                    "scan.tasks.orders.tiers[0].interval=200ms");

    private static DataSource database() {
        return new DriverManagerDataSource("jdbc:h2:mem:sharded-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    private static void tables(DataSource dataSource, int... numbers) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        for (int n : numbers) {
            String table = "tb_o_0" + n;
            jdbc.execute("CREATE TABLE " + table + " (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                    + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                    + " updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, last_error VARCHAR(512))");
            for (int id = 1; id <= 20; id++) {
                jdbc.update("INSERT INTO " + table + " (order_id, user_id) VALUES (?, ?)", id, id % 3);
            }
        }
    }

    private static int done(DataSource dataSource, String table) {
        return new JdbcTemplate(dataSource)
                .queryForObject("SELECT COUNT(*) FROM " + table + " WHERE status = 1", Integer.class);
    }

    @Test
    void everyRowOfTheTablesInBothDataSourcesRuns() {
        ran.clear();
        tables(home, 0, 1);
        tables(second, 2, 3);
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ScanEngine.class)
                            .task("orders")
                            .definition()
                            .shards())
                    .isEqualTo(8);
            await().atMost(TestTime.scaled(Duration.ofSeconds(30)))
                    .until(() -> done(home, "tb_o_00")
                                    + done(home, "tb_o_01")
                                    + done(second, "tb_o_02")
                                    + done(second, "tb_o_03")
                            == 80);
            assertThat(ran).hasSize(80).doesNotHaveDuplicates();
            assertThat(ran).filteredOn(each -> each.startsWith("tb_o_03/")).hasSize(20);
            // the fences of tables 02 and 03 (shards 4-7) in the second data source, made there at startup
            assertThat(new JdbcTemplate(second)
                            .queryForList("SELECT shard FROM scan_fence ORDER BY shard", Integer.class))
                    .containsExactly(4, 5, 6, 7);
        });
    }

    @Test
    @org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
    void oneWarningListsTheIndexesOfTheTablesThatLackOne(org.springframework.boot.test.system.CapturedOutput output) {
        tables(home, 0, 1);
        tables(second, 2, 3);
        // tables 02 and 03 have the index the task's fetch needs: its own statements for them
        io.shardscan.core.task.TaskDefinition task = io.shardscan.core.task.TaskDefinition.builder("orders")
                .tables(java.util.stream.Stream.of("tb_o_00", "tb_o_01", "tb_o_02", "tb_o_03")
                        .map(name -> new io.shardscan.core.task.Tables.Table(name, "any"))
                        .toList())
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(2)
                .build();
        for (int table : new int[] {2, 3}) {
            io.shardscan.jdbc.SchemaDdl.scanIndexStatements(
                            io.shardscan.jdbc.SqlDialect.detect(second), task.part(table))
                    .forEach(new JdbcTemplate(second)::execute);
        }
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            java.util.List<String> warnings = output.getAll()
                    .lines()
                    .filter(line -> line.contains("an index that keeps its fetches range scans"))
                    .toList();
            assertThat(warnings)
                    .singleElement()
                    .asString()
                    .contains("scan.tasks.orders: some of the 4 tables of scan.tasks.orders.tables lack");
            String statements = output.getAll().substring(output.getAll().indexOf(warnings.get(0)));
            assertThat(statements.substring(0, statements.indexOf("or set")))
                    .contains("ON tb_o_00", "ON tb_o_01")
                    .doesNotContain("ON tb_o_02", "ON tb_o_03");
        });
    }

    @Test
    void theScanEndpointListsTheTablesThatHoldRows() {
        tables(home, 0, 1);
        tables(second, 2, 3);
        new JdbcTemplate(second).update("UPDATE tb_o_03 SET status = 2 WHERE order_id <= 4");
        runner.withConfiguration(AutoConfigurations.of(io.shardscan.actuate.ScanEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=scan", "scan.backlog-refresh=200ms")
                .run(context -> {
                    io.shardscan.actuate.ScanEndpoint endpoint =
                            context.getBean(io.shardscan.actuate.ScanEndpoint.class);
                    await().atMost(TestTime.scaled(Duration.ofSeconds(30))).untilAsserted(() -> {
                        // null until the first background count
                        io.shardscan.actuate.BacklogDescriptor backlog =
                                endpoint.scan().tasks().get("orders").backlog();
                        assertThat(backlog).isNotNull();
                        assertThat(backlog.tables())
                                .containsExactly(new io.shardscan.core.Backlog.TableBacklog("tb_o_03", 0, 4));
                    });
                });
    }

    @Test
    void aDataSourceThatIsNoBeanIsNamedAtStartup() {
        tables(home, 0, 1);
        runner.withPropertyValues(
                        "scan.tasks.orders.data-sources.ordersB=", "scan.tasks.orders.data-sources.nope=tb_o_{02..03}")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasMessageContaining("scan.tasks.orders.data-sources names 'nope', which is no DataSource"
                                + " bean: the DataSource beans are [dataSource, ordersB]"));
    }

    @Test
    void aTableThatNoDataSourceHoldsIsNamedAtStartup() {
        runner.withPropertyValues("scan.tasks.orders.data-sources.ordersB=tb_o_02")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasMessageContaining(
                                "scan.tasks.orders.data-sources does not say where the tables [tb_o_03]" + " live"));
    }

    @Test
    void wakeOnInsertIsRefusedForATaskOfSeveralTables() {
        tables(home, 0, 1);
        tables(second, 2, 3);
        runner.withPropertyValues("scan.tasks.orders.wake-on-insert=true").run(context -> assertThat(context)
                .getFailure()
                .hasMessageContaining(
                        "scan.tasks.orders.wake-on-insert is true, but the task scans several" + " tables"));
    }

    @Test
    void tableAndTablesTogetherAreRefused() {
        runner.withPropertyValues("scan.tasks.orders.table=tb_order").run(context -> assertThat(context)
                .getFailure()
                .hasMessageContaining("scan.tasks.orders sets both table and tables"));
    }

    static class Orders {
        @ScanTask("orders")
        public void send(Order order, ScanContext context) {
            ran.add(context.table() + "/" + order.orderId());
        }
    }

    record Order(long orderId, long userId) {}
}
