package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardscan.actuate.BudgetDescriptor;
import io.shardscan.actuate.ScanBacklogs;
import io.shardscan.actuate.ScanEndpoint;
import io.shardscan.actuate.ScanMetrics;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One node's worker budget ({@code scan.max-workers}) shared by a high-priority task {@code vip}
 * and a low-priority task {@code normal}, on H2: the budget bounds the handlers of both together,
 * free workers go to {@code vip} first, and {@code max-wait} ages {@code normal} so that its rows
 * wait little longer than that. Each row's wait is read from the tables: when its handler started
 * ({@code budget_effect.started_at}) minus when it was inserted ({@code created_at}, the
 * {@code updated_at} it was inserted with).
 */
class WorkerBudgetTests {

    static final int BUDGET = 4;
    static final int SHARDS = 8;
    static final int PAGE = 20;

    final DataSource dataSource = TestServers.h2("worker_budget");
    final JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    final AtomicLong seq = new AtomicLong();
    final AtomicInteger active = new AtomicInteger();
    final AtomicInteger mostActive = new AtomicInteger();
    /** Each thread that ran a handler, with the names it ran them under ({@code task: thread name}). */
    final Map<Thread, Set<String>> handlerThreads = new ConcurrentHashMap<>();

    @Nullable
    ScanEngine engine;

    final ScanMetrics metrics = new ScanMetrics(() -> engine, name -> null);
    final MeterRegistry registry = new SimpleMeterRegistry();

    WorkerBudgetTests() {
        new OrderTable(dataSource).coordinationTables();
        jdbc.execute("DROP TABLE IF EXISTS budget_effect");
        jdbc.execute("CREATE TABLE budget_effect (task VARCHAR(16) NOT NULL, order_id BIGINT NOT NULL,"
                + " started_at TIMESTAMP NOT NULL, seq BIGINT NOT NULL)");
        for (String task : List.of("vip", "normal")) {
            String table = "tb_" + task;
            jdbc.execute("DROP TABLE IF EXISTS " + table);
            jdbc.execute("CREATE TABLE " + table + " (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                    + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                    + " updated_at TIMESTAMP NOT NULL, last_error VARCHAR(512), created_at TIMESTAMP NOT NULL,"
                    + " scan_shard INT GENERATED ALWAYS AS (" + SchemaDdl.shardOf("user_id", SHARDS) + "))");
            jdbc.execute(
                    "CREATE INDEX " + table + "_scan_idx ON " + table + " (status, scan_shard, retry_count, order_id)");
        }
    }

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.stop();
        }
    }

    @Test
    void aLowerPriorityTaskWaitsWhileAHigherOneHasWork() {
        ScanEngine engine = startPaused(task("vip", 10, null), task("normal", 0, null), Duration.ofMillis(10));
        insert("vip", 1, 1200, Instant.now());
        insert("normal", 1, 200, Instant.now());
        engine.task("vip").resume();
        await().until(() -> engine.task("vip").workersHeld() == BUDGET);
        engine.task("normal").resume();
        // normal is in line, behind vip; an operator sees both in /actuator/scan and the metrics
        await().until(() -> engine.task("normal").longestBudgetWait().toMillis() >= 200);
        BudgetDescriptor normal = budgetOf(engine, "normal");
        assertThat(normal.priority()).isZero();
        assertThat(normal.roundsWaiting()).isPositive();
        assertThat(normal.longestWaitMillis()).isGreaterThanOrEqualTo(200);
        double held =
                registry.get("scan.workers.held").tag("task", "vip").gauge().value()
                        + registry.get("scan.workers.held")
                                .tag("task", "normal")
                                .gauge()
                                .value();
        assertThat(held).isLessThanOrEqualTo(BUDGET);
        assertThat(budgetWait("vip", false).count()).isPositive();

        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> pending("vip") + pending("normal") == 0);
        long firstNormal = jdbc.queryForObject("SELECT MIN(seq) FROM budget_effect WHERE task = 'normal'", Long.class);
        Integer vipAfter = jdbc.queryForObject(
                "SELECT COUNT(*) FROM budget_effect WHERE task = 'vip' AND seq > ?", Integer.class, firstNormal);
        // near its end vip has rounds running but none in line, and normal may take a free worker:
        // a few of vip's last pages can still follow normal's first row, never most of vip's rows
        assertThat(vipAfter)
                .as("vip rows started after normal's first row, of 1200")
                .isLessThanOrEqualTo(SHARDS * PAGE);
        assertThat(mostActive.get())
                .as("handlers of both tasks running at once")
                .isLessThanOrEqualTo(BUDGET);
        assertThat(engine.task("vip").stats().budgetWaits()).isPositive();
        assertThat(engine.task("normal").stats().agedRounds()).isZero();
        assertThat(effects()).isEqualTo(1400);
        // the threads too: both tasks' lanes ran on the budget's threads, never more than it has workers
        // (a pool per task made a thread per worker of each, 8 here), each named for the task it ran
        assertThat(handlerThreads).as("threads that ran handlers").hasSizeLessThanOrEqualTo(BUDGET);
        assertThat(handlerThreads.values().stream().flatMap(Set::stream))
                .as("task: thread name")
                .allMatch(
                        ran -> ran.startsWith("vip: scan-vip-worker-") || ran.startsWith("normal: scan-normal-worker-"))
                .anyMatch(ran -> ran.startsWith("normal: "));
    }

    @Test
    void maxWaitAgesALowPriorityTaskSoItsRowsWaitLittleLongerThanThat() {
        Duration maxWait = Duration.ofSeconds(5);
        ScanEngine engine = startPaused(task("vip", 10, null), task("normal", 0, maxWait), Duration.ofMillis(10));
        // vip alone needs at least 25 s for these at 4 workers; normal gets three batches meanwhile
        insert("vip", 1, 10_000, Instant.now());
        engine.task("vip").resume();
        await().until(() -> engine.task("vip").workersHeld() == BUDGET);
        engine.task("normal").resume();
        for (int batch = 0; batch < 3; batch++) {
            insert("normal", 1 + batch * 100, 100, Instant.now());
            int done = (batch + 1) * 100;
            await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> doneRows("normal") == done);
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
        }

        // updated_at is the engine's once a row is done: created_at keeps when it was inserted
        Map<String, Object> waits = jdbc.queryForMap("SELECT MIN(DATEDIFF('MILLISECOND', n.created_at, e.started_at))"
                + " AS shortest, MAX(DATEDIFF('MILLISECOND', n.created_at, e.started_at)) AS longest"
                + " FROM budget_effect e JOIN tb_normal n ON n.order_id = e.order_id WHERE e.task = 'normal'");
        long shortest = ((Number) waits.get("SHORTEST")).longValue();
        long longest = ((Number) waits.get("LONGEST")).longValue();
        System.out.printf("WorkerBudgetTests: normal rows waited %d to %d ms (max-wait 5 s)%n", shortest, longest);
        // without aging they would wait for vip's 10 000 rows (25 s or more); the margin is for a
        // loaded 2-core machine (8.2 s seen there)
        assertThat(longest)
                .as("ms the slowest normal row waited, with max-wait 5 s")
                .isLessThanOrEqualTo(maxWait.toMillis() + 6_000);
        assertThat(shortest)
                .as("ms the quickest normal row waited: vip went first until normal's rows aged")
                .isGreaterThanOrEqualTo(4_000);
        assertThat(pending("vip")).as("vip still had work throughout").isPositive();
        assertThat(engine.task("normal").stats().agedRounds()).isPositive();
        assertThat(budgetWait("normal", true).count()).isPositive();
        assertThat(budgetWait("normal", true).max(TimeUnit.MILLISECONDS))
                .as("ms the longest aged round of normal waited in line")
                .isPositive();
        assertThat(mostActive.get()).isLessThanOrEqualTo(BUDGET);
    }

    @Test
    void roundsInLineLeaveItWhenTheirTaskPausesOrStops() {
        ScanEngine engine = startPaused(task("vip", 10, null), task("normal", 0, null), Duration.ofMillis(20));
        insert("vip", 1, 5_000, Instant.now());
        insert("normal", 1, 100, Instant.now());
        engine.task("vip").resume();
        await().until(() -> engine.task("vip").workersHeld() == BUDGET);
        engine.task("normal").resume();
        // as many rounds in line as normal has workers, and they hold no thread while they wait
        await().until(() ->
                engine.task("normal").stats().roundsWaiting() == BUDGET && threadsNamed("scan-normal-round-") == 0);

        engine.task("normal").pause();
        await().until(() -> engine.task("normal").stats().roundsWaiting() == 0);
        engine.task("normal").resume();
        await().until(() -> engine.task("normal").stats().roundsWaiting() > 0);

        long started = System.nanoTime();
        engine.stop();
        long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf("WorkerBudgetTests: stop took %d ms%n", stopMillis);
        // vip's workers came free as it stopped; normal's rounds in line took none of them
        assertThat(effectsOf("normal")).isZero();
        assertThat(pending("normal")).isEqualTo(100);
        assertThat(stopMillis).as("ms to stop; the shutdown timeout is 10 s").isLessThan(8_000);
        assertThat(engine.task("normal").stats().roundsWaiting()).isZero();
    }

    private TaskDefinition task(String name, int priority, @Nullable Duration maxWait) {
        return TaskDefinition.builder(name)
                .table("tb_" + name)
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .pageSize(PAGE)
                .workers(BUDGET)
                .tiers(List.of(Tier.of("0", Duration.ofMillis(200))))
                .priority(priority)
                .maxWait(maxWait)
                .build();
    }

    /** Starts one engine with both tasks on a budget of {@link #BUDGET}, both paused once they hold every shard. */
    private ScanEngine startPaused(TaskDefinition vip, TaskDefinition normal, Duration eachRow) {
        List<ScanEngine.ScanTask> tasks = new ArrayList<>();
        for (TaskDefinition task : List.of(vip, normal)) {
            tasks.add(new ScanEngine.ScanTask(task, handler(task.name(), eachRow)));
        }
        ScanEngine engine = new ScanEngine(
                tasks,
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                Engines.settings("node-a", BUDGET),
                ScanClock.system(),
                metrics);
        this.engine = engine;
        engine.start();
        metrics.bindTo(registry);
        // the tables are empty until both are paused, so no row runs before the test lets it
        engine.task("vip").pause();
        engine.task("normal").pause();
        await().until(() -> engine.task("vip").ownedShards().size() == SHARDS
                && engine.task("normal").ownedShards().size() == SHARDS);
        return engine;
    }

    /** Records when each row's handler started, then takes {@code eachRow}. */
    private TaskHandler.PerRow handler(String task, Duration eachRow) {
        return (row, ctx) -> {
            handlerThreads
                    .computeIfAbsent(Thread.currentThread(), thread -> ConcurrentHashMap.newKeySet())
                    .add(task + ": " + Thread.currentThread().getName());
            int now = active.incrementAndGet();
            mostActive.accumulateAndGet(now, Math::max);
            try {
                jdbc.update(
                        "INSERT INTO budget_effect (task, order_id, started_at, seq) VALUES (?, ?, ?, ?)",
                        task,
                        row.id(),
                        Timestamp.from(Instant.now()),
                        seq.incrementAndGet());
                LockSupport.parkNanos(eachRow.toNanos());
                return Outcome.done();
            } finally {
                active.decrementAndGet();
            }
        };
    }

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith(prefix))
                .count();
    }

    private void insert(String task, long firstId, int count, Instant updatedAt) {
        List<Object[]> rows = new ArrayList<>(count);
        for (long id = firstId; id < firstId + count; id++) {
            rows.add(new Object[] {id, id % 97, Timestamp.from(updatedAt), Timestamp.from(updatedAt)});
        }
        jdbc.batchUpdate(
                "INSERT INTO tb_" + task + " (order_id, user_id, updated_at, created_at) VALUES (?, ?, ?, ?)", rows);
    }

    private Timer budgetWait(String task, boolean aged) {
        return registry.get("scan.budget.wait")
                .tag("task", task)
                .tag("aged", Boolean.toString(aged))
                .timer();
    }

    private BudgetDescriptor budgetOf(ScanEngine engine, String task) {
        ScanEndpoint endpoint = new ScanEndpoint(engine, new ScanBacklogs(engine, Duration.ofMinutes(1)), false);
        return Objects.requireNonNull(
                Objects.requireNonNull(endpoint.task(task)).budget());
    }

    private int pending(String task) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM tb_" + task + " WHERE status = 0", Integer.class);
    }

    private int doneRows(String task) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM tb_" + task + " WHERE status = 1", Integer.class);
    }

    private int effects() {
        return jdbc.queryForObject("SELECT COUNT(*) FROM budget_effect", Integer.class);
    }

    private int effectsOf(String task) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM budget_effect WHERE task = ?", Integer.class, task);
    }
}
