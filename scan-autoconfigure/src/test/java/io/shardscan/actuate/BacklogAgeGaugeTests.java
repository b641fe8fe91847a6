package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.SettableScanClock;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lag gauge {@code scan.backlog.oldest.age} of a real engine on H2: the age of the oldest due row at
 * the last background count (by the database's clock, which stamped the rows) plus the time since that
 * count by the engine's clock, so it is exact here, where that clock is moved by hand. Counts are taken by
 * calling {@link ScanBacklogs#refresh()}, never in the background.
 */
class BacklogAgeGaugeTests {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("backlog_age");
    final SettableScanClock clock = new SettableScanClock(T0);
    final MeterRegistry registry = new SimpleMeterRegistry();
    OrderTable table;
    ScanBacklogs backlogs;

    /**
     * Rows 1 and 2 failed once two minutes ago and rest an hour in tier 1-5, so they stay pending; rows 3
     * and 4 are fresh and done at once, so tier 0 has nothing pending.
     */
    @BeforeEach
    void startEngine() {
        table = new OrderTable(dataSource)
                .recreate(4, true)
                .coordinationTables()
                .insert(4, 4, T0);
        table.jdbc().update("UPDATE tb_order SET retry_count = 1 WHERE order_id IN (1, 2)");
        table.updatedAgo("order_id IN (1, 2)", Duration.ofSeconds(120));
        TaskDefinition task = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                .tiers(List.of(Tier.of("0", Duration.ofSeconds(1)), Tier.of("1-5", Duration.ofHours(1))))
                .build();
        ScanEngine engine = engines.start(
                "node-1",
                dataSource,
                task,
                (TaskHandler.PerRow) (row, ctx) -> Outcome.done(),
                clock,
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        await().until(() -> table.count("status = 1") == 2);
        backlogs = new ScanBacklogs(engine, Duration.ofHours(1), clock);
        new ScanMetrics(() -> engine, backlogs::count, clock).bindTo(registry);
    }

    @Test
    void oldestAgeIsTheCountsAgePlusTheTimeSinceByTheEnginesClock() {
        assertThat(age("1-5")).as("before the first count").isNaN();
        backlogs.refresh();
        double counted = age("1-5");
        // the database's clock ages the rows: two minutes, plus however long this test took to get here
        assertThat(counted).isBetween(120.0, 180.0).isEqualTo(Math.rint(counted));
        assertThat(age("0")).as("no row pending in tier 0").isZero();

        clock.advance(Duration.ofSeconds(90));
        assertThat(age("1-5")).as("90 s after the count, by the engine's clock").isEqualTo(counted + 90);
        assertThat(age("0"))
                .as("a tier without due rows at the count is not aged")
                .isZero();

        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id IN (1, 2)");
        backlogs.refresh();
        assertThat(age("1-5")).as("the next count found no row").isZero();
        clock.advance(Duration.ofSeconds(90));
        assertThat(age("1-5")).isZero();
    }

    /** The lag an operator alerts on is most needed when the database does not answer. */
    @Test
    void oldestAgeKeepsGrowingWhileCountsFail() {
        backlogs.refresh();
        double counted = age("1-5");
        table.jdbc().execute("ALTER TABLE tb_order RENAME TO tb_order_gone");
        backlogs.refresh();
        clock.advance(Duration.ofSeconds(300));
        assertThat(backlogs.count("orders").takenAt())
                .as("the failed count kept the last one")
                .isEqualTo(T0);
        assertThat(age("1-5")).isEqualTo(counted + 300);
    }

    private double age(String tier) {
        return registry.get("scan.backlog.oldest.age")
                .tags("task", "orders", "tier", tier)
                .gauge()
                .value();
    }
}
