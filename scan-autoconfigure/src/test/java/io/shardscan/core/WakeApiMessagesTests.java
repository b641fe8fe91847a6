package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.WakeNodeMain;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a wake-up that cannot be done says: a null key names the column to pass, a range task names
 * the calls that exist for it, and a wake-up before the engine started is dropped with one INFO line.
 * The engine is never started here: nothing of it runs.
 */
@ServerTests
class WakeApiMessagesTests {

    @RegisterExtension
    final CapturedLog log = new CapturedLog(Wakes.class.getName());

    final DataSource dataSource = TestServers.postgresDatabase("wake_messages");

    private ScanEngine engine() {
        RangeTask range = new RangeTask(
                TaskDefinition.builder("member-coupon")
                        .table("tb_user")
                        .idColumn("user_id")
                        .build(),
                1000,
                Duration.ofMinutes(5),
                RunMode.ONCE);
        return new ScanEngine(
                List.of(new ScanEngine.ScanTask(WakeNodeMain.task(8), (TaskHandler.PerRow) (row, ctx) -> null)),
                new JdbcTaskStore(dataSource),
                new StaticShardCoordinator(0, 1, ScanClock.system()),
                WakeNodeMain.settings("node-a"),
                ScanClock.system(),
                ScanListener.NONE,
                new InMemoryEndpointBans(ScanClock.system()),
                List.of(new RangeJob(range, (TaskHandler.PerRow) (row, ctx) -> null)),
                Engines.rangeStores(dataSource, new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT)));
    }

    @Test
    void aNullKeyNamesTheColumnToPass() {
        ScanTasks tasks = new ScanTasks(engine());

        assertThatThrownBy(() -> tasks.wake("order-sms", (Object) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("wake(\"order-sms\", shardKey) got a null shardKey")
                .hasMessageContaining("pass the row's user_id (the task's shard-key-column) as a Long or Integer");
    }

    @Test
    void aRangeTaskNamesTheCallsThatExist() {
        ScanTasks tasks = new ScanTasks(engine());

        assertThatThrownBy(() -> tasks.wake("member-coupon", 1L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is a range task (mode: range)")
                .hasMessageContaining("ScanTasks.start(\"member-coupon\")")
                .hasMessageContaining("ScanEngine.rangeTask(\"member-coupon\")")
                .hasMessageNotContaining("use rangeTask(");
    }

    @Test
    void aWakeUpBeforeTheEngineStartedIsDroppedWithOneInfoLine() {
        ScanTasks tasks = new ScanTasks(engine());

        tasks.wake("order-sms", 3L);
        tasks.wake("order-sms", 4L);

        assertThat(log.messages(Level.INFO))
                .singleElement()
                .asString()
                .contains("a wake-up while the engine is not running was dropped")
                .contains("picked up by the tier-0 poll");
    }
}
