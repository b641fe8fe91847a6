package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardscan.actuate.ScanHealthIndicator;
import io.shardscan.actuate.ScanMetrics;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * A handler that never returns holds one thread, never a worker, a shard or the task: past the
 * handler timeout its row is recorded failed, its thread interrupted and its worker replaced.
 */
class HandlerTimeoutTests {

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = TestServers.h2("handler_timeout");
    final OrderTable table = new OrderTable(dataSource).recreate(8, true).coordinationTables();
    /** Lets the hung handler go at the end of the test; it ignores interrupts until then. */
    final CountDownLatch hangUntil = new CountDownLatch(1);

    @AfterEach
    void letTheHungThreadGo() {
        hangUntil.countDown();
    }

    /**
     * With a pool of the task's own, and on the node's worker threads under a budget of exactly the
     * task's workers (the default in an application: {@code scan.max-workers} 200): either pool grows by
     * the hung thread, or only 3 handlers would run at once after it.
     */
    @ParameterizedTest(name = "max-workers {0}")
    @NullSource
    @ValueSource(ints = 4)
    void aHungHandlerCostsOneThreadAndTheTaskKeepsItsWorkers(Integer maxWorkers) {
        table.insert(5000, 97, Instant.now());
        AtomicInteger active = new AtomicInteger();
        AtomicInteger mostActiveAfterTimeout = new AtomicInteger();
        AtomicInteger attemptsOfRow1 = new AtomicInteger();
        TaskDefinition task = orders().workers(4)
                .handlerTimeout(Duration.ofSeconds(2))
                .tiers(List.of(Tier.of("0", Duration.ofMillis(500)), Tier.of("1-5", Duration.ofSeconds(1))))
                .build();
        long started = System.nanoTime();
        TaskHandler.PerRow handler = (row, ctx) -> {
            if (row.id() == 1 && attemptsOfRow1.incrementAndGet() == 1) {
                hangIgnoringInterrupts();
                return Outcome.done();
            }
            int now = active.incrementAndGet();
            if (engineTimedOut()) {
                mostActiveAfterTimeout.accumulateAndGet(now, Math::max);
            }
            // 5 ms a row: about 6 s of work for 4 workers, most of it after the 2 s timeout
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            active.decrementAndGet();
            return table.recordEffect(row, ctx, 0);
        };
        ScanEngine engine = engines.start(new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, handler)),
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                Engines.settings("node-a", maxWorkers),
                ScanClock.system(),
                ScanListener.NONE));
        this.engine = engine;

        await().until(() -> table.count("status = 1 AND order_id <> 1") == 4999);
        System.out.printf(
                "HandlerTimeoutTests: 4999 rows done %d ms after the start%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        await().until(() -> table.count("order_id = 1 AND status = 1") == 1);
        assertThat(attemptsOfRow1.get()).isEqualTo(2);
        assertThat(table.jdbc().queryForObject("SELECT last_error FROM tb_order WHERE order_id = 1", String.class))
                .startsWith("timed out after PT2S (scan.tasks.orders.handler-timeout)");
        TaskStats stats = engine.task("orders").stats();
        assertThat(stats.handlerTimeouts()).isEqualTo(1);
        assertThat(stats.abandonedThreads()).as("the hung thread, still stuck").isEqualTo(1);
        // seen by an operator: a metric, and a health detail that names the cause and the fix, not DOWN
        MeterRegistry registry = new SimpleMeterRegistry();
        new ScanMetrics(() -> engine, name -> null).bindTo(registry);
        assertThat(registry.get("scan.handlers.abandoned").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("scan.handler.timeouts").functionCounter().count())
                .isEqualTo(1.0);
        Health health = new ScanHealthIndicator(engine).health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails().get("tasks").toString())
                .contains("abandonedThreads=1")
                .contains("ran past scan.tasks.orders.handler-timeout (PT2S)")
                .contains("thread dump");
        assertThat(mostActiveAfterTimeout.get())
                .as("handlers running at once after the hung one was replaced")
                .isEqualTo(4);
        assertThat(table.effects())
                .as("every row once, row 1 on its second attempt")
                .isEqualTo(5000);
        assertThat(table.duplicateEffects()).isZero();

        hangUntil.countDown();
        await().until(() -> stats.abandonedThreads() == 0);
    }

    /**
     * The round gives up on a call past the handler timeout and interrupts its thread; the call returns in
     * between, its thread leaves the lane and runs the next lane (another shard's, on the task's one
     * worker). Forced: the round is held at its warning line (after it took the call over, before the
     * interrupt) until that next call has started. The interrupt must not reach it: before, it did, and
     * failed a row that had nothing to do with the timeout (on the node's shared workers, another task's).
     */
    @Test
    void anAbandonedCallsInterruptNeverReachesTheNextLaneItsThreadRuns() throws InterruptedException {
        table.insert(40, 40, Instant.now());
        TaskDefinition task =
                orders().workers(1).handlerTimeout(Duration.ofSeconds(2)).build();
        AtomicReference<Thread> hungThread = new AtomicReference<>();
        AtomicInteger hungShard = new AtomicInteger(-1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch nextOnThatThread = new CountDownLatch(1);
        CountDownLatch nextEnded = new CountDownLatch(1);
        AtomicReference<Boolean> nextInterrupted = new AtomicReference<>();
        CapturedLog log = new CapturedLog(Lane.class.getName());
        log.beforeEach(null);
        log.whenLogged(record -> {
            if (record.getMessage().contains("interrupted and replaced")) {
                // the round took the call over and has not interrupted yet: let the call return, and hold
                // the round here until the thread runs the next lane
                release.countDown();
                awaitQuietly(nextOnThatThread, 10);
            }
        });
        try {
            engines.start("node-a", dataSource, task, (TaskHandler.PerRow) (row, ctx) -> {
                if (hungThread.compareAndSet(null, Thread.currentThread())) {
                    hungShard.set(ctx.shard());
                    awaitQuietly(release, 60);
                    return Outcome.done();
                }
                if (Thread.currentThread() == hungThread.get()
                        && ctx.shard() != hungShard.get()
                        && nextOnThatThread.getCount() > 0) {
                    nextOnThatThread.countDown();
                    try {
                        // well within the handler timeout: only a stray interrupt ends it early
                        Thread.sleep(300);
                        nextInterrupted.set(false);
                    } catch (InterruptedException e) {
                        nextInterrupted.set(true);
                    }
                    nextEnded.countDown();
                }
                return Outcome.done();
            });
            assertThat(nextEnded.await(60, TimeUnit.SECONDS))
                    .as("the hung call's thread ran another shard's call")
                    .isTrue();
        } finally {
            log.afterEach(null);
        }
        assertThat(nextInterrupted.get())
                .as("the next call on that thread was interrupted")
                .isFalse();
    }

    /**
     * A call the round took over past the handler timeout throws once it is interrupted, as a blocking
     * read does: the row was recorded and logged as timed out, and the call's late failure is not logged
     * as the row's (before, a second WARN said the row "failed at attempt 1" with the interrupt).
     */
    @Test
    void anAbandonedCallsLateFailureIsNotLoggedAsTheRowsOwn() throws InterruptedException {
        table.insert(20, 20, Instant.now());
        TaskDefinition task = orders().workers(2)
                .handlerTimeout(Duration.ofSeconds(1))
                .tiers(List.of(Tier.of("0", Duration.ofMillis(200)), Tier.of("1-5", Duration.ofMillis(500))))
                .build();
        AtomicInteger attemptsOfRow1 = new AtomicInteger();
        CountDownLatch interrupted = new CountDownLatch(1);
        CapturedLog log = new CapturedLog(Lane.class.getName());
        log.beforeEach(null);
        try {
            engines.start("node-a", dataSource, task, (TaskHandler.PerRow) (row, ctx) -> {
                if (row.id() == 1 && attemptsOfRow1.incrementAndGet() == 1) {
                    try {
                        // hangs until interrupted, as a blocking read does
                        hangUntil.await();
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw new IllegalStateException("read interrupted", e);
                    }
                }
                return table.recordEffect(row, ctx, 0);
            });
            await().until(() -> table.count("status = 1") == 20);
            assertThat(interrupted.await(10, TimeUnit.SECONDS))
                    .as("the abandoned call was interrupted")
                    .isTrue();
        } finally {
            log.afterEach(null);
        }
        assertThat(attemptsOfRow1.get()).isEqualTo(2);
        assertThat(log.messages())
                .anyMatch(message -> message.contains("row 1 timed out after PT1S"))
                .noneMatch(message -> message.contains("failed at attempt"));
    }

    /** Waits up to {@code seconds}, ignoring interrupts. */
    private static void awaitQuietly(CountDownLatch latch, long seconds) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (latch.getCount() > 0 && System.nanoTime() < until) {
            try {
                latch.await(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                // ignored on purpose
            }
        }
    }

    @Test
    void shutdownSaysWhatItWaitsForAndWhatItGaveUpOn() {
        table.insert(1, 1, Instant.now());
        TaskDefinition task = orders().build();
        CountDownLatch entered = new CountDownLatch(1);
        ScanEngine engine = new ScanEngine(
                List.of(new ScanEngine.ScanTask(task, (TaskHandler.PerRow) (row, ctx) -> {
                    entered.countDown();
                    hangIgnoringInterrupts();
                    return Outcome.done();
                })),
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                new EngineSettings(
                        "node-a", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(1)),
                ScanClock.system(),
                ScanListener.NONE);
        CapturedLog log = new CapturedLog(TaskRunner.class.getName());
        log.beforeEach(null);
        try {
            engine.start();
            await().until(() -> entered.getCount() == 0);
            long stopping = System.nanoTime();
            engine.stop();
            assertThat(Duration.ofNanos(System.nanoTime() - stopping)).isLessThan(Duration.ofSeconds(5));
        } finally {
            engine.stop(); // a no-op once stopped; else an engine left running into the next test
            log.afterEach(null);
        }
        assertThat(log.messages())
                // shard 0's round, and any other round in flight at that moment (on a loaded machine an empty
                // round of shard 5 was still fetching: "shards [0, 5]"); only shard 0's outlives the timeout
                .anySatisfy(line -> assertThat(line)
                        .containsPattern("stopping, waiting up to PT1S \\(scan.shutdown-timeout\\) for the rounds of"
                                + " shards \\[(\\d+, )*0(, \\d+)*\\]")
                        .contains("1 rows in handlers"))
                .anySatisfy(line -> assertThat(line)
                        .contains("gave up after PT1S on the rounds of shards [0]")
                        .contains("runs again on the next owner"))
                .anySatisfy(line -> assertThat(line)
                        .endsWith("stopped; released shards [0, 1, 2, 3, 4, 5, 6, 7] and left the members"));
        assertThat(table.count("status = 0")).isEqualTo(1);
    }

    private volatile ScanEngine engine;

    private boolean engineTimedOut() {
        ScanEngine current = engine;
        return current != null && current.task("orders").stats().handlerTimeouts() > 0;
    }

    /** A call that sleeps for ten minutes and shrugs off interrupts, as a stuck socket read would. */
    private void hangIgnoringInterrupts() {
        awaitQuietly(hangUntil, TimeUnit.MINUTES.toSeconds(10));
    }

    /** The task of these tests: {@code tb_order}'s orders over 8 shards. */
    private static TaskDefinition.Builder orders() {
        return OrderTable.task("orders", 8);
    }
}
