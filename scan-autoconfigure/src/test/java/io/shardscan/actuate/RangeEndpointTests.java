package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanTasks;
import io.shardscan.core.TaskView;
import io.shardscan.core.spi.RangeFailure;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.ScanContext;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.UserTable;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A range task through the starter, as an application writes it: {@code mode: range} on a table
 * without a status column, a {@code @ScanTask} method, {@code /actuator/scan} with its progress and
 * failures, and the {@code requeue} and {@code start} actions.
 */
class RangeEndpointTests {

    private static final JdbcEndpoint DB = TestServers.h2Endpoint("range_endpoint");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    ScanAutoConfiguration.class,
                    ScanEndpointAutoConfiguration.class))
            .withBean(Notifier.class)
            .withPropertyValues(
                    "spring.datasource.url=" + DB.url(),
                    "spring.datasource.username=" + DB.user(),
                    "scan.node-id=solo",
                    "management.endpoint.scan.access=UNRESTRICTED",
                    "management.endpoints.web.exposure.include=scan",
                    "scan.tasks.notify.mode=range",
                    "scan.tasks.notify.table=tb_user",
                    "scan.tasks.notify.id-column=user_id",
                    "scan.tasks.notify.range-size=300",
                    "scan.tasks.notify.page-size=50",
                    "scan.tasks.notify.workers=2",
                    "scan.tasks.notify.tiers[0].retries=0-1",
                    "scan.tasks.notify.tiers[0].interval=200ms");

    /** Fails the ids in {@link #BROKEN} and counts the others' calls. */
    static class Notifier {
        static final Set<Long> BROKEN = ConcurrentHashMap.newKeySet();
        final Map<Long, Long> epochs = new ConcurrentHashMap<>();

        @ScanTask("notify")
        public void notify(Map<String, Object> user, ScanContext ctx) {
            long id = ((Number) user.get("user_id")).longValue();
            if (BROKEN.contains(id)) {
                throw new IllegalStateException("no address for " + id);
            }
            epochs.put(id, ctx.epoch());
        }
    }

    @Test
    void aRangeTaskRunsOnceShowsItsProgressAndFailuresAndRequeuesThem() {
        UserTable users = new UserTable(TestServers.h2("range_endpoint")).recreate();
        long inserted = users.insertWithGaps(1, 2_000, 1);
        Notifier.BROKEN.clear();
        Notifier.BROKEN.addAll(Set.of(10L, 999L));
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            ScanEndpoint endpoint = context.getBean(ScanEndpoint.class);
            ScanEndpointWebExtension web = context.getBean(ScanEndpointWebExtension.class);
            await().until(() -> endpoint.scan().ranges().get("notify").state() == TaskView.State.DONE);
            RangeTaskDescriptor done = endpoint.scan().ranges().get("notify");
            assertThat(done.run()).isEqualTo("once");
            assertThat(done.processed()).as("rows that succeeded").isEqualTo(inserted - 2);
            assertThat(done.failed()).isEqualTo(2);
            assertThat(done.percent()).isEqualTo(100.0);
            assertThat(done.failures()).as("the overview runs no query").isNull();
            assertThat(endpoint.scan().tasks()).doesNotContainKey("notify");
            MeterRegistry registry = new SimpleMeterRegistry();
            ScanEngine engine = context.getBean(ScanEngine.class);
            new ScanMetrics(() -> engine, task -> null).bindTo(registry);
            await().untilAsserted(() -> {
                assertThat(registry.get("scan.range.processed")
                                .tag("task", "notify")
                                .gauge()
                                .value())
                        .isEqualTo(inserted - 2);
                assertThat(registry.get("scan.range.percent")
                                .tag("task", "notify")
                                .gauge()
                                .value())
                        .isEqualTo(100.0);
                assertThat(registry.get("scan.run.done")
                                .tag("task", "notify")
                                .gauge()
                                .value())
                        .isEqualTo(1.0);
            });
            assertThat(context.getBean(Notifier.class).epochs)
                    .hasSize((int) inserted - 2)
                    .containsValue(1L);

            WebEndpointResponse<Object> page = web.task("notify");
            assertThat(page.getBody()).isInstanceOfSatisfying(RangeTaskDescriptor.class, task -> {
                assertThat(task.failures().count()).isEqualTo(2);
                assertThat(task.failures().recent())
                        .extracting(RangeFailure::id)
                        .containsExactlyInAnyOrder(10L, 999L);
                assertThat(task.failures().recent())
                        .allSatisfy(f -> assertThat(f.attempts()).isEqualTo(2));
            });

            Notifier.BROKEN.clear();
            WebEndpointResponse<Object> requeued = web.act("notify", "requeue", null, SecurityContext.NONE);
            assertThat(requeued.getStatus()).isEqualTo(200);
            assertThat(((ActionDescriptor) requeued.getBody()).requeued()).isEqualTo(2);
            assertThat(((RangeTaskDescriptor) web.task("notify").getBody())
                            .failures()
                            .count())
                    .isZero();
            assertThat(context.getBean(Notifier.class).epochs).hasSize((int) inserted);
            await().untilAsserted(() -> {
                RangeTaskDescriptor after = endpoint.scan().ranges().get("notify");
                assertThat(after.failed())
                        .as("requeued rows that succeeded are failed no more")
                        .isZero();
                assertThat(after.processed()).isEqualTo(inserted);
            });

            assertThat(web.act("notify", "pause", null, SecurityContext.NONE).getStatus())
                    .isEqualTo(400);

            users.insert(50_000);
            TaskRun second = context.getBean(ScanTasks.class).start("notify");
            assertThat(second.id()).isEqualTo(2);
            await().until(() -> {
                RangeTaskDescriptor now = endpoint.scan().ranges().get("notify");
                return now.runId() == 2 && now.state() == TaskView.State.DONE;
            });
            assertThat(endpoint.scan().ranges().get("notify").highId()).isEqualTo(50_000);
        });
    }

    @Test
    void aRangeTaskWithoutItsTableFailsStartup() {
        new UserTable(TestServers.h2("range_endpoint")).jdbc().execute("DROP TABLE IF EXISTS tb_user");
        runner.run(context -> assertThat(context)
                .hasFailed()
                .getFailure()
                .hasStackTraceContaining("scan.tasks.notify")
                .hasStackTraceContaining("tb_user"));
    }
}
