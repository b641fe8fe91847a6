package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.MatchOverlap;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node's threads do not grow with its tasks (issue 26 §4): the lease ticks and dispatcher passes of
 * every task run on the node's shared threads ({@link NodeThreads}), each task's one at a time
 * ({@link TaskThread}). Before, each task had a lease thread and a dispatcher thread of its own.
 */
class NodeThreadsTests {

    static final int TASKS = 40;

    @RegisterExtension
    final Engines engines = new Engines();

    DataSource dataSource = TestServers.h2("node_threads");

    private final List<NodeThreads> nodes = new ArrayList<>();

    /** Closed after the test. */
    private NodeThreads started(NodeThreads node) {
        nodes.add(node);
        return node;
    }

    @AfterEach
    void closeNodes() {
        nodes.forEach(NodeThreads::close);
    }

    @Test
    void fortyIdleTasksTickAndProbeOnTheNodesSharedThreads() {
        new OrderTable(dataSource).recreate(2, true).coordinationTables();
        Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
        List<ScanEngine.ScanTask> tasks = IntStream.range(0, TASKS)
                .mapToObj(i ->
                        new ScanEngine.ScanTask(task("many-" + i), (TaskHandler.PerRow) (row, ctx) -> Outcome.done()))
                .toList();
        ScanEngine engine = engines.start(new ScanEngine(
                tasks,
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                new EngineSettings(
                        "node-1", Engines.FAST_TTL, Engines.FAST_RENEW, Engines.FAST_TTL, Duration.ofSeconds(10)),
                ScanClock.system(),
                ScanListener.NONE));

        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> tasks.stream()
                .map(task -> engine.task(task.definition().name()))
                .allMatch(view -> view.ownedShards().size() == 2
                        && view.stats().probes() >= 2
                        && view.stats().leaseTicks() >= 3));

        // by kind: a thread running a task's tick, pass or round carries the task's name meanwhile
        Map<String, Integer> kinds = new TreeMap<>();
        Thread.getAllStackTraces().keySet().stream()
                // the engine's own: a pool of another test in this JVM may start a thread meanwhile
                .filter(thread -> !before.contains(thread)
                        && thread.isAlive()
                        && thread.getName().startsWith("scan-"))
                .forEach(thread -> kinds.merge(
                        thread.getName().replaceAll("^scan-(many-\\d+-)?", "").replaceAll("-\\d+$", ""),
                        1,
                        Integer::sum));
        String report = "threads the engine started for " + TASKS + " idle tasks, by kind: " + kinds;
        assertThat(kinds.getOrDefault("ticks", 0) + kinds.getOrDefault("lease", 0))
                .as(report)
                .isLessThanOrEqualTo(NodeThreads.TICK_THREADS);
        assertThat(kinds.getOrDefault("dispatch", 0)).as(report).isLessThanOrEqualTo(NodeThreads.DISPATCH_THREADS);
        // the start-up's first rounds fetched on the fetch threads
        assertThat(kinds.getOrDefault("fetch", 0)).as(report).isLessThanOrEqualTo(NodeThreads.FETCH_THREADS);
        // and the round threads (lanes, and the budget's sweep), the timer, the renewals
        assertThat(kinds.keySet())
                .as(report)
                .isSubsetOf("ticks", "lease", "dispatch", "fetch", "round", "timer", "lease-renew");
    }

    /**
     * A task's ticks never overlap, nor its passes, though they share threads with every other task;
     * and each run sees what the one before it wrote.
     */
    @Test
    void aTaskThreadRunsOneAtATimeInOrderOnSharedThreads() throws InterruptedException {
        NodeThreads node = started(new NodeThreads(4));
        List<TaskThread> lanes =
                IntStream.range(0, 4).mapToObj(i -> node.control("lane-" + i)).toList();
        int runs = 2_000;
        Map<Integer, List<Integer>> seen = new ConcurrentHashMap<>();
        Set<Integer> inside = ConcurrentHashMap.newKeySet();
        List<String> overlaps = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(lanes.size() * runs);
        for (int n = 0; n < runs; n++) {
            for (int lane = 0; lane < lanes.size(); lane++) {
                int l = lane;
                int run = n;
                seen.putIfAbsent(l, new ArrayList<>());
                lanes.get(l).execute(() -> {
                    if (!inside.add(l)) {
                        overlaps.add("lane " + l + " run " + run);
                    }
                    // a plain list: only the lane's own runs touch it, one after another
                    seen.get(l).add(run);
                    Thread.onSpinWait();
                    inside.remove(l);
                    done.countDown();
                });
            }
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(overlaps).isEmpty();
        for (int lane = 0; lane < lanes.size(); lane++) {
            assertThat(seen.get(lane))
                    .as("lane %d", lane)
                    .isEqualTo(IntStream.range(0, runs).boxed().toList());
        }
    }

    /** A delayed run cancelled after it came due, while it waits behind a run in progress, does not run. */
    @Test
    void aCancelledDelayedRunDoesNotRunEvenWhenAlreadyQueued() throws InterruptedException {
        NodeThreads node = started(new NodeThreads(1));
        TaskThread lane = node.control("lane");
        CountDownLatch inFirst = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch after = new CountDownLatch(1);
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        lane.execute(() -> {
            inFirst.countDown();
            awaitQuietly(release);
        });
        assertThat(inFirst.await(10, TimeUnit.SECONDS)).isTrue();
        TaskThread.Delayed delayed = lane.schedule(() -> ran.add("delayed"), 1, TimeUnit.MILLISECONDS);
        // due, and queued behind the first run
        await().atMost(Duration.ofSeconds(10)).until(delayed::queued);
        delayed.cancel();
        lane.execute(after::countDown);
        release.countDown();
        assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).isEmpty();
    }

    /**
     * {@code shutdownNow} interrupts the task's run in progress, and that interrupt does not reach the
     * next work the shared thread does for another task.
     */
    @Test
    void shutdownNowInterruptsTheTasksRunOnlyNotTheSharedThreadsNextWork() throws InterruptedException {
        NodeThreads node = started(new NodeThreads(1));
        TaskThread stopping = node.control("stopping");
        TaskThread other = node.control("other");
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        stopping.execute(() -> {
            inside.countDown();
            // returns with its interrupt flag still set, as a run that ignores interrupts does
            while (!Thread.currentThread().isInterrupted()) {
                Thread.onSpinWait();
            }
            interrupted.countDown();
        });
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        stopping.shutdownNow();
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        List<Boolean> flags = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch ran = new CountDownLatch(1);
        other.execute(() -> {
            flags.add(Thread.currentThread().isInterrupted());
            ran.countDown();
        });
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(flags).containsExactly(false);
        assertThat(stopping.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * Under the node's worker budget the tasks' lanes share the node's worker threads: a stopping task
     * interrupts its own lanes only, the other task's lane runs on, and the pool goes on serving it.
     */
    @Test
    void aStoppingTaskInterruptsOnlyItsOwnLanesOnTheSharedWorkers() throws InterruptedException {
        NodeThreads node = started(new NodeThreads(2));
        TaskWorkers stopping = node.workers("stopping", 2);
        TaskWorkers other = node.workers("other", 2);
        CountDownLatch inside = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        List<String> names = Collections.synchronizedList(new ArrayList<>());
        List<Boolean> otherInterrupted = Collections.synchronizedList(new ArrayList<>());
        stopping.execute(() -> {
            names.add(Thread.currentThread().getName());
            inside.countDown();
            while (!Thread.currentThread().isInterrupted()) {
                Thread.onSpinWait();
            }
            interrupted.countDown();
        });
        CountDownLatch otherDone = new CountDownLatch(1);
        other.execute(() -> {
            names.add(Thread.currentThread().getName());
            inside.countDown();
            awaitQuietly(release);
            otherInterrupted.add(Thread.currentThread().isInterrupted());
            otherDone.countDown();
        });
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(names)
                .anyMatch(name -> name.matches("scan-stopping-worker-\\d+"))
                .anyMatch(name -> name.matches("scan-other-worker-\\d+"));
        stopping.stop();
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        release.countDown();
        assertThat(otherDone.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(otherInterrupted).containsExactly(false);
        // the thread that ran the stopped task's lane serves the other task, its interrupt cleared
        List<Boolean> next = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch ran = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            other.execute(() -> {
                next.add(Thread.currentThread().isInterrupted());
                ran.countDown();
            });
        }
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(next).containsExactly(false, false);
    }

    /**
     * The node's worker pool gives a lane to an idle thread before it makes one: lanes one after
     * another run on one thread. A fixed pool of the budget's size made a thread per lane until it had
     * them all (one task of 8 workers made 200).
     */
    @Test
    void theNodesWorkersRunALaneOnAnIdleThreadBeforeMakingOne() throws InterruptedException {
        NodeThreads node = started(new NodeThreads(1));
        TaskWorkers workers = node.workers("one", 10);
        Set<Thread> ran = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 20; i++) {
            CountDownLatch done = new CountDownLatch(1);
            workers.execute(() -> {
                ran.add(Thread.currentThread());
                done.countDown();
            });
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> workers.busyThreads() == 0);
        }
        assertThat(ran).hasSize(1);
        assertThat(workers.threads()).isEqualTo(1);

        // and as many threads as lanes run at once, up to the pool's size
        CountDownLatch inside = new CountDownLatch(3);
        CountDownLatch release = new CountDownLatch(1);
        for (int i = 0; i < 3; i++) {
            workers.execute(() -> {
                inside.countDown();
                awaitQuietly(release);
            });
        }
        assertThat(inside.await(10, TimeUnit.SECONDS)).as("three lanes at once").isTrue();
        release.countDown();
        assertThat(workers.threads()).isEqualTo(3);
    }

    /**
     * A lane's thread counts as idle on the node's workers once the lane gave its worker back, not once
     * its last line ran: the task's next lane waits a moment for that thread instead of making another.
     * Forced: every lane's thread lingers 200 ms after its lane (a listener's wrap), while the task's one
     * worker goes on at once to the next shard's round. Before, those lanes made a thread each (one task
     * of 8 workers ran on 12 threads).
     */
    @Test
    void aLanesThreadCountsIdleOnceItsWorkerIsBack() {
        OrderTable table = new OrderTable(dataSource).recreate(4, true).coordinationTables();
        table.insert(40, 40, java.time.Instant.now());
        Set<Thread> ran = ConcurrentHashMap.newKeySet();
        TaskDefinition one = OrderTable.task("lingering", 4).workers(1).build();
        ScanListener lingering = new ScanListener() {
            @Override
            public Runnable around(String task, int shard, long epoch, Runnable work) {
                if (!(work instanceof Lane)) {
                    return work;
                }
                return () -> {
                    work.run();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
                };
            }
        };
        engines.start(new ScanEngine(
                List.of(new ScanEngine.ScanTask(one, (TaskHandler.PerRow) (row, ctx) -> {
                    ran.add(Thread.currentThread());
                    return Outcome.done();
                })),
                new JdbcTaskStore(dataSource),
                new JdbcShardCoordinator(dataSource),
                Engines.settings("node-1", 10),
                ScanClock.system(),
                lingering));
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> table.count("status = 1") == 40);
        assertThat(ran)
                .as("threads that ran the handler of a task of one worker")
                .hasSize(1);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static TaskDefinition task(String name) {
        return OrderTable.task(name, 2)
                .workers(2)
                .matchOverlap(MatchOverlap.ALLOWED)
                .build();
    }
}
