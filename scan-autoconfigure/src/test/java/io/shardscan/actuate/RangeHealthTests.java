package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.UserTable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** The health of a range task: a run that stopped moving is UNKNOWN with its cause; a DONE run is UP. */
class RangeHealthTests {

    @RegisterExtension
    final Engines engines = new Engines();

    @Test
    void aStalledRunIsUnknownWithItsCauseAndADoneRunIsUp() {
        DataSource dataSource = TestServers.h2("range_health");
        new OrderTable(dataSource).coordinationTables();
        UserTable users = new UserTable(dataSource).recreate();
        users.insertWithGaps(1, 600, 1);
        RangeTask task = new RangeTask(
                TaskDefinition.builder("notify")
                        .table("tb_user")
                        .idColumn("user_id")
                        .pageSize(50)
                        .workers(2)
                        .commitInterval(Duration.ofMillis(100))
                        .tiers(List.of(new Tier(0, 0, Duration.ofMillis(200))))
                        .build(),
                100,
                Duration.ofSeconds(2),
                RunMode.ONCE);
        CountDownLatch release = new CountDownLatch(1);
        ScanEngine engine = engines.startRange(
                "node-1",
                dataSource,
                Engines.rangeStores(dataSource, new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT)),
                new RangeJob(task, (TaskHandler.PerRow) (row, ctx) -> {
                    // every worker hangs on its range's first row 300 until released
                    if (row.id() > 300) {
                        release.await(60, TimeUnit.SECONDS);
                    }
                    return null;
                }));
        ScanHealthIndicator health = new ScanHealthIndicator(engine);

        Health stalled =
                await().until(() -> health.health(true), h -> h.getStatus().equals(Status.UNKNOWN));
        assertThat(details(stalled)).containsEntry("run", 1L).hasEntrySatisfying("stalledCause", cause -> assertThat(
                        (String) cause)
                .contains("run 1 of notify has not moved for")
                .contains("longer than scan.tasks.notify.stall-timeout (PT2S)")
                .contains("threads scan-notify-range-worker-*"));

        release.countDown();
        Health done = await().until(() -> health.health(true), h -> "DONE"
                .equals(String.valueOf(details(h).get("state"))));
        assertThat(done.getStatus()).isEqualTo(Status.UP);
        assertThat(details(done)).doesNotContainKey("stalledCause").containsEntry("percent", 100.0);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> details(Health health) {
        return (Map<String, Object>) ((Map<String, Object>) health.getDetails().get("ranges")).get("notify");
    }
}
