package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.actuate.ScanEndpointWebExtension.Refusal;
import io.shardscan.core.InMemoryEndpointBans;
import io.shardscan.core.ScanClock;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.ScanListener;
import io.shardscan.core.StaticShardCoordinator;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.WakeNodeMain;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.http.ResponseEntity;

/**
 * The failed-rows API asked for a range task's failures says where they are (the range failures
 * table, shown by the scan endpoint's view of the task) instead of "no task". The engine is not
 * started: the answer needs only its task names.
 */
class DashboardRangeFailuresTests {

    final DataSource dataSource = TestServers.h2("dashboard_range_failures");

    @Test
    void aRangeTasksFailuresAnswerSaysWhereTheyAre() {
        RangeTask range = new RangeTask(
                TaskDefinition.builder("member-coupon")
                        .table("tb_user")
                        .idColumn("user_id")
                        .build(),
                1000,
                Duration.ofMinutes(5),
                RunMode.ONCE);
        ScanEngine engine = new ScanEngine(
                List.of(new ScanEngine.ScanTask(WakeNodeMain.task(8), (TaskHandler.PerRow) (row, ctx) -> null)),
                new JdbcTaskStore(dataSource),
                new StaticShardCoordinator(0, 1, ScanClock.system()),
                WakeNodeMain.settings("node-a"),
                ScanClock.system(),
                ScanListener.NONE,
                new InMemoryEndpointBans(ScanClock.system()),
                List.of(new RangeJob(range, (TaskHandler.PerRow) (row, ctx) -> null)),
                Engines.rangeStores(dataSource, new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT)));
        FailedRowsController controller = new FailedRowsController(engine, new DashboardWriteGuard(false));

        ResponseEntity<Object> answer = controller.failures("member-coupon", true, 0, 20);

        assertThat(answer.getStatusCode().value()).isEqualTo(404);
        assertThat(((Refusal) answer.getBody()).message())
                .contains("'member-coupon' is a range task (mode: range)")
                .contains("GET /actuator/scan/member-coupon")
                .contains("the action requeue runs them again")
                .doesNotContain("No task");
        assertThat(((Refusal) controller.failures("nope", true, 0, 20).getBody()).message())
                .contains("No task 'nope'");
    }
}
