package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.List;
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
}
