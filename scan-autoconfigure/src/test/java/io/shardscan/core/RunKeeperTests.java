package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What a task's run needs and refuses, on H2: a task that keeps runs needs a store that keeps them,
 * and a task that runs forever has no run to start.
 */
class RunKeeperTests {

    final DataSource dataSource = TestServers.h2("run_keeper");
    final OrderTable table = new OrderTable(dataSource).recreate(4, true).coordinationTables();

    TaskDefinition task(RunMode run) {
        return TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                .run(run)
                .build();
    }

    ScanEngine engine(TaskDefinition task, TaskStore store) {
        return new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> null)),
                store,
                new JdbcShardCoordinator(dataSource),
                new EngineSettings(
                        "node-1",
                        Duration.ofSeconds(2),
                        Duration.ofMillis(300),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(5)),
                ScanClock.system(),
                ScanListener.NONE);
    }

    /** The JDBC store, keeping no runs. */
    TaskStore withoutRuns() {
        JdbcTaskStore store = new JdbcTaskStore(dataSource);
        return (TaskStore) Proxy.newProxyInstance(
                TaskStore.class.getClassLoader(), new Class<?>[] {TaskStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("runs")) {
                        return null;
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void aTaskThatKeepsRunsNeedsAStoreThatKeepsThem() {
        assertThat(engine(task(RunMode.UNTIL_EMPTY), withoutRuns()).check())
                .singleElement()
                .asString()
                .startsWith("scan.tasks.orders.run is until-empty, but the task store ")
                .contains("keeps no runs: use the JDBC store, or run: forever");
        assertThat(engine(task(RunMode.FOREVER), withoutRuns()).check()).isEmpty();
        assertThat(engine(task(RunMode.UNTIL_EMPTY), new JdbcTaskStore(dataSource))
                        .check())
                .isEmpty();
    }

    @Test
    void aTaskThatRunsForeverHasNoRunToStart() {
        ScanEngine engine = engine(task(RunMode.FOREVER), new JdbcTaskStore(dataSource));
        assertThat(engine.task("orders").run()).isNull();
        assertThatThrownBy(() -> new ScanTasks(engine).start("orders"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("task orders runs forever (scan.tasks.orders.run)");
        assertThatThrownBy(() -> new ScanTasks(engine).start("refunds"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no task 'refunds'");
    }

    /**
     * A lease tick that read the current run (run 1, done) just before {@code ScanTasks.start} made run 2
     * current on another thread must not put run 1 back: the node would stop its rounds and count their
     * write-backs to run 1 (run 2 once ended with 14 of its 20 rows counted). Forced: the lease thread's
     * read is held after it read run 1 until the start returned, and its next read is held until the
     * node's state was checked.
     */
    @Test
    void aTickThatReadTheRunBeforeAStartDoesNotPutTheOldRunBack() throws Exception {
        HeldReads reads = new HeldReads(new JdbcTaskStore(dataSource));
        ScanEngine engine = engine(task(RunMode.UNTIL_EMPTY), reads.store());
        try {
            engine.start();
            await().until(() -> engine.task("orders").state() == TaskView.State.DONE);
            table.insert(20, 5, Instant.now().minusSeconds(5));

            reads.holdTheLeaseThread();
            assertThat(reads.staleRead.await(10, TimeUnit.SECONDS)).isTrue();
            TaskRun started = new ScanTasks(engine).start("orders");
            assertThat(started.id()).isEqualTo(2);
            reads.releaseStaleRead.countDown();
            // the tick that read run 1 has followed it; the next tick's read waits for this check
            assertThat(reads.nextRead.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(engine.task("orders").state())
                    .as("run 2, started here, is not replaced by the tick's older read of run 1")
                    .isEqualTo(TaskView.State.RUNNING);
            reads.releaseNextRead.countDown();

            await().until(() -> engine.task("orders").state() == TaskView.State.DONE);
            assertThat(engine.task("orders").run().id()).isEqualTo(2);
            assertThat(engine.task("orders").run().counts().processed()).isEqualTo(20);
        } finally {
            reads.releaseStaleRead.countDown();
            reads.releaseNextRead.countDown();
            engine.stop();
        }
    }

    /** A store whose runs, once armed, hold the lease thread's next two reads of the current run. */
    static final class HeldReads {
        private final JdbcTaskStore target;
        private volatile boolean armed;
        private final AtomicInteger leaseReads = new AtomicInteger();
        final CountDownLatch staleRead = new CountDownLatch(1);
        final CountDownLatch releaseStaleRead = new CountDownLatch(1);
        final CountDownLatch nextRead = new CountDownLatch(1);
        final CountDownLatch releaseNextRead = new CountDownLatch(1);

        HeldReads(JdbcTaskStore target) {
            this.target = target;
        }

        void holdTheLeaseThread() {
            armed = true;
        }

        TaskStore store() {
            TaskRuns runs = target.runs();
            TaskRuns held = (TaskRuns) Proxy.newProxyInstance(
                    TaskRuns.class.getClassLoader(), new Class<?>[] {TaskRuns.class}, (proxy, method, args) -> {
                        boolean leaseThread = Thread.currentThread().getName().contains("-lease-");
                        int read = armed && leaseThread && method.getName().equals("current")
                                ? leaseReads.incrementAndGet()
                                : 0;
                        if (read == 2) {
                            nextRead.countDown();
                            releaseNextRead.await();
                        }
                        Object result = invoke(method, runs, args);
                        if (read == 1) {
                            staleRead.countDown();
                            releaseStaleRead.await();
                        }
                        return result;
                    });
            return (TaskStore) Proxy.newProxyInstance(
                    TaskStore.class.getClassLoader(),
                    new Class<?>[] {TaskStore.class},
                    (proxy, method, args) -> method.getName().equals("runs") ? held : invoke(method, target, args));
        }

        private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
