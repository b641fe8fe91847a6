package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The threads a task's handlers run on come from its {@link WorkerThreads}, at most {@code workers}
 * of them, on H2.
 */
class WorkerThreadsTests {

    static final int WORKERS = 3;

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("worker_threads");
    final OrderTable table = new OrderTable(dataSource);

    @Test
    void theHandlersRunOnTheTasksWorkerThreadsAndNoMoreOfThemThanItsWorkers() {
        table.recreate(4, true).coordinationTables();
        table.insert(300, 60, Instant.now().minusSeconds(5));
        Set<String> asked = ConcurrentHashMap.newKeySet();
        AtomicInteger made = new AtomicInteger();
        WorkerThreads threads = (task, prefix) -> {
            asked.add(task + " " + prefix);
            ThreadFactory platform = WorkerThreads.PLATFORM.factory(task, "custom-" + prefix);
            return runnable -> {
                made.incrementAndGet();
                return platform.newThread(runnable);
            };
        };
        Set<String> ranOn = ConcurrentHashMap.newKeySet();
        TaskDefinition task = OrderTable.task("orders", 4).workers(WORKERS).build();
        engines.start(new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> {
                    ranOn.add(Thread.currentThread().getName());
                    return Outcome.done();
                })),
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                new EngineSettings(
                        "node-a",
                        Engines.FAST_TTL,
                        Engines.FAST_RENEW,
                        Engines.FAST_TTL,
                        Duration.ofSeconds(10),
                        null,
                        threads),
                ScanClock.system(),
                ScanListener.NONE));

        await().until(() -> table.count("status = 1") == 300);
        assertThat(asked).containsExactly("orders scan-orders-worker-");
        assertThat(ranOn).isNotEmpty().allMatch(name -> name.startsWith("custom-scan-orders-worker-"));
        assertThat(made.get()).isBetween(1, WORKERS);
    }
}
