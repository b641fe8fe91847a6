package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.core.spi.UnfetchableRows;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pending rows that no tier fetches for what the engine's columns hold (a NULL or negative retry
 * count, a failed row without an updated-at) are never run: startup warns of each kind with its
 * count, the column and statements that fix them, which run as printed; the backlog counts them
 * apart; rows of a kind that appear later are warned when the backlog is counted. One small
 * subclass per database.
 */
abstract class UnfetchableRowsContractTests {

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog schemaLog = new CapturedLog("io.shardscan.core.SchemaCheck");

    @RegisterExtension
    final CapturedLog viewLog = new CapturedLog("io.shardscan.core.TaskView");

    OrderTable table;

    abstract DataSource dataSource();

    /** The statements that let tb_order's retry_count and updated_at be NULL. */
    List<String> nullable() {
        return List.of(
                "ALTER TABLE tb_order ALTER COLUMN retry_count DROP NOT NULL",
                "ALTER TABLE tb_order ALTER COLUMN updated_at DROP NOT NULL");
    }

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource()).recreate(4, true).coordinationTables();
        // as an ORM's table with an Integer retry count: nullable columns
        nullable().forEach(table.jdbc()::execute);
        table.insert(10, 10, Instant.now().minusSeconds(5));
        table.jdbc().update("UPDATE tb_order SET retry_count = NULL WHERE order_id IN (1, 2)");
        table.jdbc().update("UPDATE tb_order SET retry_count = -1 WHERE order_id = 3");
        table.jdbc().update("UPDATE tb_order SET retry_count = 2, updated_at = NULL WHERE order_id IN (4, 5)");
    }

    @Test
    void startupWarnsOfRowsNoTierFetchesWithStatementsThatFixThem() {
        ScanEngine engine = engine();
        assertThat(engine.check()).isEmpty();
        List<String> warnings = schemaLog.warnings();
        String nullRetries = single(warnings, "have a NULL retry count");
        assertThat(nullRetries)
                .startsWith("scan.tasks.orders: 2 pending rows of tb_order have a NULL retry count (retry_count); no"
                        + " tier fetches them")
                .contains("backlog.nullRetryCount")
                .contains("UPDATE tb_order SET retry_count = 0 WHERE retry_count IS NULL;")
                .contains("NOT NULL");
        String negative = single(warnings, "negative retry count");
        assertThat(negative)
                .startsWith("scan.tasks.orders: 1 pending rows of tb_order have a negative retry count (retry_count)")
                .contains("UPDATE tb_order SET retry_count = 0 WHERE status = 0 AND retry_count < 0;");
        String withoutUpdatedAt = single(warnings, "have a NULL updated_at");
        assertThat(withoutUpdatedAt)
                .startsWith("scan.tasks.orders: 2 failed pending rows of tb_order (retry_count above 0) have a NULL"
                        + " updated_at")
                .contains("backlog.failedWithoutUpdatedAt");

        engines.start(engine);
        await().until(() -> table.count("status = 1") == 5);
        Backlog backlog = engine.task("orders").countBacklog();
        assertThat(backlog.unfetchable()).isEqualTo(new UnfetchableRows(2, 1, 2));
        assertThat(engine.task("orders").unfetchableRows())
                .as("as the last count found them, for the gauge and the health")
                .isEqualTo(new UnfetchableRows(2, 1, 2));
        assertThat(SlowDatabaseLeaseTests.tasks(new ScanHealthIndicator(engine).health(true))
                        .get("orders")
                        .get("unfetchableRows"))
                .asString()
                .contains("2 pending rows of tb_order have a NULL retry count")
                .contains("1 pending rows of tb_order have a negative retry count")
                .contains("2 failed pending rows of tb_order");
        assertThat(backlog.total())
                .as("the failed rows without updated_at are in their tier; NULL and negative counts in none")
                .isEqualTo(2);
        assertThat(backlog.tiers().get(1).pending()).isEqualTo(2);
        assertThat(table.count("status = 0 AND order_id <= 5"))
                .as("none of them was run")
                .isEqualTo(5);

        // the statements run as printed, and then startup has nothing to say
        for (String warning : List.of(nullRetries, negative, withoutUpdatedAt)) {
            statements(warning).forEach(table.jdbc()::execute);
        }
        int before = schemaLog.warnings().size();
        assertThat(engine.check()).isEmpty();
        assertThat(schemaLog.warnings().subList(before, schemaLog.warnings().size()))
                .isEmpty();
        assertThat(engine.task("orders").countBacklog().unfetchable()).isEqualTo(UnfetchableRows.NONE);
        await().alias("the rows whose retry count was NULL or negative run")
                .until(() -> table.count("status = 1 AND order_id <= 3") == 3);
    }

    /** A row an ORM writes with a NULL retry count after startup: warned once, when the backlog counts it. */
    @Test
    void rowsThatAppearAfterStartupAreWarnedWhenTheBacklogCountsThem() {
        table.jdbc().update("DELETE FROM tb_order WHERE order_id <= 5");
        ScanEngine engine = engines.start(engine());
        assertThat(engine.task("orders").countBacklog().unfetchable()).isEqualTo(UnfetchableRows.NONE);
        table.jdbc()
                .update("INSERT INTO tb_order (order_id, user_id, phone, updated_at, retry_count)"
                        + " VALUES (11, 1, '+155511', CURRENT_TIMESTAMP, NULL)");
        assertThat(engine.task("orders").countBacklog().unfetchable()).isEqualTo(new UnfetchableRows(1, 0, 0));
        engine.task("orders").countBacklog();
        assertThat(viewLog.warnings())
                .filteredOn(m -> m.contains("NULL retry count"))
                .singleElement()
                .asString()
                .startsWith("scan.tasks.orders: 1 pending rows of tb_order have a NULL retry count (retry_count)")
                .contains("UPDATE tb_order SET retry_count = 0 WHERE retry_count IS NULL;");
    }

    private ScanEngine engine() {
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                .tiers(List.of(Tier.of("0", Duration.ofMillis(200)), Tier.of("1-5", Duration.ofMillis(200))))
                .build();
        return new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> null)),
                new JdbcTaskStore(dataSource()),
                new JdbcShardCoordinator(dataSource()),
                new EngineSettings(
                        "node-a", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(10)),
                ScanClock.system(),
                ScanListener.NONE);
    }

    private static String single(List<String> warnings, String text) {
        List<String> matching = warnings.stream().filter(w -> w.contains(text)).toList();
        assertThat(matching).as("warnings: %s", warnings).hasSize(1);
        return matching.get(0);
    }

    /** The statements a warning prints, one a line after its first. */
    private static List<String> statements(String warning) {
        return Arrays.stream(warning.split("\n"))
                .skip(1)
                .map(line -> line.strip().replaceAll(";$", ""))
                .toList();
    }
}
