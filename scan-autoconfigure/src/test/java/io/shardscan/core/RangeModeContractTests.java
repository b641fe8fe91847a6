package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.RangeCursor;
import io.shardscan.core.spi.RangeFailures;
import io.shardscan.core.spi.RangeLedger;
import io.shardscan.core.spi.RangeSnapshot;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.RangeTable;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestTime;
import io.shardscan.testsupport.UserTable;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Range mode on several engines in one JVM, against real databases and cursors: every id once, DONE
 * once, takeover of a stalled range with the stale owner fenced off, resume after a restart, follow,
 * failures and requeue. Run on each database and cursor through a subclass.
 */
public abstract class RangeModeContractTests {

    protected abstract DataSource createDataSource();

    protected abstract RangeCursor createCursor(DataSource dataSource);

    /** The other kind of cursor than {@link #createCursor}'s, for nodes that restart on another coordinator. */
    protected abstract RangeCursor createOtherCursor(DataSource dataSource);

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog log = new CapturedLog("io.shardscan.core.RangeRunner");

    @RegisterExtension
    final CapturedLog failureLog = new CapturedLog("io.shardscan.core.RangeHandling");

    private DataSource dataSource;
    private UserTable users;
    private RangeStores stores;
    private String name;

    @BeforeEach
    void setUp() {
        dataSource = createDataSource();
        new OrderTable(dataSource).coordinationTables();
        users = new UserTable(dataSource).recreate();
        stores = Engines.rangeStores(dataSource, createCursor(dataSource));
        name = "users-" + System.nanoTime();
    }

    private RangeTask task(long rangeSize, Duration stallTimeout, RunMode run) {
        return new RangeTask(
                TaskDefinition.builder(name)
                        .table("tb_user")
                        .idColumn("user_id")
                        .pageSize(100)
                        .workers(2)
                        .commitInterval(Duration.ofMillis(100))
                        .tiers(List.of(new Tier(0, 2, Duration.ofMillis(200))))
                        .build(),
                rangeSize,
                stallTimeout,
                run);
    }

    private TaskHandler.PerRow recording(String node) {
        return (row, ctx) -> {
            users.jdbc()
                    .update(
                            "INSERT INTO notified (user_id, node, epoch) VALUES (?, ?, ?)",
                            row.id(),
                            node,
                            ctx.epoch());
            return null;
        };
    }

    private ScanEngine node(String node, RangeTask task, TaskHandler handler) {
        return engines.startRange(node, dataSource, stores, new RangeJob(task, handler));
    }

    private List<String> doneLines() {
        return log.messages(Level.INFO).stream()
                .filter(m -> m.contains(name + ": run ") && m.contains(" DONE"))
                .toList();
    }

    /** Ids with gaps inside ranges and whole empty ranges between two stretches, on three nodes. */
    @Test
    void everyIdRunsOnceAcrossNodesAndTheRunEndsDoneOnce() {
        long inserted = users.insertWithGaps(1, 12_000, 1) + users.insertWithGaps(100_001, 6_000, 3);
        RangeTask task = task(1_000, Duration.ofMinutes(5), RunMode.ONCE);
        List<ScanEngine> nodes = List.of(
                node("node-a", task, recording("node-a")),
                node("node-b", task, recording("node-b")),
                node("node-c", task, recording("node-c")));

        await().atMost(TestTime.scaled(Duration.ofSeconds(90))).until(() -> nodes.stream()
                .allMatch(n -> n.rangeTask(name).snapshot().run().done()));
        assertThat(users.missed()).isZero();
        assertThat(users.duplicates()).isZero();
        assertThat(users.notifiedIds()).isEqualTo(inserted);
        assertThat(doneLines()).hasSize(1);
        RangeSnapshot done = nodes.get(0).rangeTask(name).snapshot();
        assertThat(done.progress().processed()).isEqualTo(inserted);
        assertThat(done.progress().failed()).isZero();
        assertThat(done.percent()).isEqualTo(100);
        assertThat(done.run().id()).isEqualTo(1);
        assertThat(users.jdbc().queryForObject("SELECT COUNT(DISTINCT node) FROM notified", Integer.class))
                .as("ranges run on every node")
                .isEqualTo(3);
    }

    /**
     * A node whose handler hangs keeps its heartbeat but its position stops: past the stall timeout
     * another node takes the range over from its committed position; the stuck node's later commit
     * changes nothing.
     */
    @Test
    void aStalledRangeIsTakenOverAndItsStaleOwnerIsFencedOff() throws Exception {
        long inserted = users.insertWithGaps(1, 3_000, 1);
        RangeTask task = task(1_000, Duration.ofSeconds(2), RunMode.ONCE);
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        TaskHandler.PerRow record = recording("node-a");
        ScanEngine a = node("node-a", task, (TaskHandler.PerRow) (row, ctx) -> {
            // only the first call hangs: a's other worker may be the one that takes the range over
            if (row.id() == 1_550 && stuck.getCount() > 0) {
                stuck.countDown();
                release.await(60, TimeUnit.SECONDS);
            }
            return record.handle(row, ctx);
        });
        assertThat(stuck.await(30, TimeUnit.SECONDS)).isTrue();
        // a's worker committed, if at all, before it called the handler that hangs: its position stands
        Long positionWhenStuck = users.jdbc()
                .queryForObject(
                        "SELECT position FROM scan_range WHERE task = ? AND range_start <= 1550 AND range_end >= 1550",
                        Long.class,
                        name);
        ScanEngine b = node("node-b", task, recording("node-b"));

        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> b.rangeTask(name).snapshot().run().done());
        release.countDown();
        await().until(() ->
                users.jdbc().queryForObject("SELECT COUNT(*) FROM notified WHERE user_id = 1550", Integer.class) == 2);
        assertThat(users.missed()).isZero();
        assertThat(users.jdbc()
                        .queryForObject(
                                "SELECT MIN(epoch) FROM notified WHERE user_id BETWEEN 1551 AND 2000", Long.class))
                .as("the range ran on under a new epoch, on whichever node took it over")
                .isEqualTo(2);
        // a's rows after its last commit before it hung run again (1550 too, which a finished once let go),
        // and nothing else; that they are at most one commit interval's is RangeCommitsTests'
        assertThat(positionWhenStuck).isBetween(1_000L, 1_549L);
        assertThat(users.duplicates())
                .isEqualTo(users.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM tb_user WHERE user_id > ? AND user_id <= 1550",
                                Long.class,
                                positionWhenStuck));
        // a's control thread reads the run every renew interval
        await().until(() -> a.rangeTask(name).snapshot().run().done());
        assertThat(a.rangeTask(name).snapshot().progress().processed())
                .as("the stale owner's late commit counted nothing")
                .isEqualTo(inserted);
        assertThat(doneLines()).hasSize(1);
    }

    /** A node stopped in the middle of a run commits what it handled; the next node carries on, nothing runs twice. */
    @Test
    void aRestartedNodeResumesTheRun() {
        long inserted = users.insertWithGaps(1, 6_000, 1);
        RangeTask task = task(500, Duration.ofMinutes(5), RunMode.ONCE);
        TaskHandler.PerRow record = recording("node-a");
        ScanEngine a = node("node-a", task, (TaskHandler.PerRow) (row, ctx) -> {
            Thread.sleep(1); // simulated work: a handler that takes a while
            return record.handle(row, ctx);
        });
        await().until(() -> users.notifiedIds() > 1_000);
        a.stop();
        long before = users.notifiedIds();
        assertThat(before).isLessThan(inserted);

        ScanEngine again = node("node-a2", task, recording("node-a2"));
        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> again.rangeTask(name).snapshot().run().done());
        assertThat(again.rangeTask(name).snapshot().run().id()).isEqualTo(1);
        assertThat(users.missed()).isZero();
        assertThat(users.duplicates()).isZero();
        assertThat(again.rangeTask(name).snapshot().progress().processed()).isEqualTo(inserted);
    }

    /**
     * Nodes that restart in the middle of a run with another range size, and on the other kind of
     * cursor (another coordinator), go on with the run's range size: the ranges never overlap and every
     * row runs once; each says so in a warning naming both sizes.
     */
    @Test
    void aRunKeepsItsRangeSizeWhenNodesRestartWithAnotherSizeAndCursor() {
        long inserted = users.insertWithGaps(1, 6_000, 1);
        TaskHandler.PerRow record = recording("node-a");
        ScanEngine a =
                node("node-a", task(500, Duration.ofMinutes(5), RunMode.ONCE), (TaskHandler.PerRow) (row, ctx) -> {
                    Thread.sleep(1); // simulated work: a handler that takes a while
                    return record.handle(row, ctx);
                });
        await().until(() -> users.notifiedIds() > 1_000);
        a.stop();
        assertThat(users.notifiedIds()).isLessThan(inserted);

        RangeStores other = Engines.rangeStores(dataSource, createOtherCursor(dataSource));
        RangeTask resized = task(700, Duration.ofMinutes(5), RunMode.ONCE);
        List<ScanEngine> nodes = List.of(
                engines.startRange("node-b", dataSource, other, new RangeJob(resized, recording("node-b"))),
                engines.startRange("node-c", dataSource, other, new RangeJob(resized, recording("node-c"))));
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> nodes.stream()
                .allMatch(n -> n.rangeTask(name).snapshot().run().done()));

        assertThat(users.missed()).isZero();
        assertThat(users.duplicates()).isZero();
        RangeSnapshot done = nodes.get(0).rangeTask(name).snapshot();
        assertThat(done.run().id()).isEqualTo(1);
        assertThat(done.run().range().rangeSize()).isEqualTo(500);
        assertThat(done.progress().processed()).isEqualTo(inserted);
        assertThat(users.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM scan_range a JOIN scan_range b ON a.task = b.task"
                                        + " AND a.run_id = b.run_id AND a.range_start < b.range_start"
                                        + " AND b.range_start <= a.range_end WHERE a.task = ?",
                                Long.class,
                                name))
                .as("overlapping ranges")
                .isZero();
        assertThat(users.jdbc()
                        .queryForObject(
                                "SELECT MAX(range_end - range_start + 1) FROM scan_range WHERE task = ?",
                                Long.class,
                                name))
                .isEqualTo(500);
        assertThat(log.warnings())
                .anySatisfy(w -> assertThat(w)
                        .contains(name + ": run 1 keeps its range size of 500 ids")
                        .contains("range-size of 700 applies from the next run"))
                .anySatisfy(w -> assertThat(w)
                        .contains(name + ": run 1 started on the "
                                + stores.cursor().kind() + " cursor and this node claims from the "
                                + other.cursor().kind() + " cursor"));
    }

    /** A following task runs the ids that exist, then the ids inserted later, and does not end. */
    @Test
    void aFollowingTaskRunsIdsInsertedWhileItRuns() {
        users.insertWithGaps(1, 2_500, 1);
        RangeTask task = task(1_000, Duration.ofMinutes(5), RunMode.FOLLOW);
        ScanEngine a = node("node-a", task, recording("node-a"));
        ScanEngine b = node("node-b", task, recording("node-b"));
        await().until(() -> users.missed() == 0);
        long more = users.insertWithGaps(2_501, 1_200, 1);
        users.insert(10_000);
        assertThat(more).isPositive();
        await().atMost(TestTime.scaled(Duration.ofSeconds(60))).until(() -> users.missed() == 0);
        assertThat(users.duplicates()).isZero();
        // every row committed, the open tail's too, counts where it ran; percent and ETA are of the same ids
        await().until(() -> a.rangeTask(name).snapshot().handledHere()
                        + b.rangeTask(name).snapshot().handledHere()
                == users.users());
        RangeSnapshot caughtUp = await().until(() -> a.rangeTask(name).snapshot(), s -> s.percent() == 100);
        assertThat(caughtUp.span()).isEqualTo(10_000 - caughtUp.run().range().lowId() + 1);
        assertThat(caughtUp.eta()).as("nothing left of the ids known").isNull();
        assertThat(a.rangeTask(name).snapshot().run().done()).isFalse();
        assertThat(b.rangeTask(name).snapshot().run().done()).isFalse();
    }

    /**
     * A following task with nothing new does not spin: its tail and its idle workers wait the first
     * tier's interval between looks, so its store calls (each one statement or Redis command) stay at a
     * bounded rate.
     */
    @Test
    void aCaughtUpFollowingTaskDoesNotSpin() {
        users.insertWithGaps(1, 500, 1);
        AtomicLong calls = new AtomicLong();
        ScanEngine a = startCounted(RunMode.FOLLOW, calls);
        await().until(() -> a.rangeTask(name).snapshot().percent() == 100);
        long before = calls.get();
        long ticksBefore = a.rangeTask(name).ticks();
        await().until(() -> a.rangeTask(name).ticks() - ticksBefore >= 10);
        long ticks = a.rangeTask(name).ticks() - ticksBefore;
        // two workers looking every 200 ms (the tier) and the control thread every 300 ms (the renew
        // interval): a few calls a tick; a spinning tail makes hundreds
        assertThat(calls.get() - before)
                .as("store calls of a caught-up follow over %d ticks", ticks)
                .isLessThanOrEqualTo(20 * ticks);
        assertThat(calls.get() - before).as("it still looks for new ids").isPositive();
        users.insert(900);
        await().until(() -> users.missed() == 0);
    }

    /**
     * A DONE run costs the store almost nothing: with no range held, the control thread reads the run
     * and its progress only every fifth renew interval (a restart started here is followed at once).
     */
    @Test
    void aDoneRunLooksOnlyEveryFifthRenewInterval() {
        users.insertWithGaps(1, 500, 1);
        AtomicLong calls = new AtomicLong();
        ScanEngine a = startCounted(RunMode.ONCE, calls);
        await().until(() -> a.rangeTask(name).snapshot().run().done());
        long before = calls.get();
        long ticksBefore = a.rangeTask(name).ticks();
        // ten heartbeats of the control thread, however long a loaded machine makes them
        await().until(() -> a.rangeTask(name).ticks() - ticksBefore >= 10);
        long ticks = a.rangeTask(name).ticks() - ticksBefore;
        // two calls (the run, its progress) on every fifth tick, plus one such tick for the readings'
        // skew; reading at every tick would be five times as many
        assertThat(calls.get() - before)
                .as("store calls of a DONE run over %d ticks", ticks)
                .isLessThanOrEqualTo(2 * (ticks / 5 + 1) + 2);
    }

    /**
     * A once run claims its ranges without reading the cursor before each claim, and asks the ledger for
     * ranges to take over about once per renew interval, not before every range: a range of 50 ids takes
     * milliseconds, and asking twice before each cost a quarter of a range worker's time (docs/benchmarks.md).
     */
    @Test
    void aOnceRunClaimsItsRangesWithoutACursorReadOrATakeoverQueryBeforeEach() {
        long inserted = users.insertWithGaps(1, 6_000, 1);
        RangeTask task = task(50, Duration.ofMinutes(5), RunMode.ONCE);
        java.util.Map<String, AtomicLong> calls = new ConcurrentHashMap<>();
        RangeStores counted = new RangeStores(
                stores.runs(),
                countingEach(RangeCursor.class, stores.cursor(), calls),
                countingEach(RangeLedger.class, stores.ledger(), calls),
                stores.table(),
                stores.failures());
        long started = System.nanoTime();
        ScanEngine a = engines.startRange("node-a", dataSource, counted, new RangeJob(task, recording("node-a")));
        await().until(() -> a.rangeTask(name).snapshot().run().done());
        double seconds = (System.nanoTime() - started) / 1e9;
        assertThat(users.missed()).isZero();
        long ranges = calls.get("open").get();
        assertThat(ranges).as("ranges of 50 ids opened: %s", calls).isGreaterThanOrEqualTo(inserted / 50);
        // bounds of time, not of ranges, so a slow machine only loosens them: asked before each range, as
        // before, a run of a few seconds asks 120 times and more
        // takeovers: every renew interval (FAST_RENEW) at most, and at each worker's try once no range is left
        long idleTries = 2 * (long) Math.ceil(seconds / 0.2) + 4;
        assertThat(calls.get("takeOver").get())
                .as("takeover queries over %.1f s for %d ranges: %s", seconds, ranges, calls)
                .isLessThanOrEqualTo((long) Math.ceil(seconds * 1000 / Engines.FAST_RENEW.toMillis()) + idleTries);
        // the cursor: only read by a worker's try once no range is left (every first-tier interval, 200 ms)
        assertThat(calls.getOrDefault("peek", new AtomicLong()).get())
                .as("cursor reads over %.1f s for %d ranges: %s", seconds, ranges, calls)
                .isLessThanOrEqualTo(idleTries);
    }

    /** Node A running the task with {@code run}, every store call but {@code kind()} counted in {@code calls}. */
    private ScanEngine startCounted(RunMode run, AtomicLong calls) {
        RangeStores counted = new RangeStores(
                counting(TaskRuns.class, stores.runs(), calls),
                counting(RangeCursor.class, stores.cursor(), calls),
                counting(RangeLedger.class, stores.ledger(), calls),
                counting(RangeTable.class, stores.table(), calls),
                counting(RangeFailures.class, stores.failures(), calls));
        return engines.startRange(
                "node-a",
                dataSource,
                counted,
                new RangeJob(task(1_000, Duration.ofMinutes(5), run), recording("node-a")));
    }

    /** {@code target} with every call but {@code kind()} counted in {@code calls}. */
    private static <T> T counting(Class<T> type, T target, AtomicLong calls) {
        return counting(type, target, method -> {
            if (!method.equals("kind")) {
                calls.incrementAndGet();
            }
        });
    }

    /** {@code target} with each call counted in {@code calls} by its method's name. */
    private static <T> T countingEach(Class<T> type, T target, java.util.Map<String, AtomicLong> calls) {
        return counting(type, target, method -> calls.computeIfAbsent(method, n -> new AtomicLong())
                .incrementAndGet());
    }

    /** {@code target} with the name of each method called given to {@code called} first. */
    private static <T> T counting(Class<T> type, T target, java.util.function.Consumer<String> called) {
        return type.cast(java.lang.reflect.Proxy.newProxyInstance(
                type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
                    called.accept(method.getName());
                    try {
                        return method.invoke(target, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                }));
    }

    /** Rows that fail every try are recorded so the run ends; a requeue runs them again. */
    @Test
    void failedRowsAreRecordedAndARequeueRunsThem() {
        long inserted = users.insertWithGaps(1, 2_000, 1);
        RangeTask task = task(1_000, Duration.ofMinutes(5), RunMode.ONCE);
        Set<Long> broken = ConcurrentHashMap.newKeySet();
        broken.addAll(List.of(100L, 1_500L, 1_999L));
        TaskHandler.PerRow record = recording("node-a");
        ScanEngine a = node("node-a", task, (TaskHandler.PerRow) (row, ctx) -> {
            if (broken.contains(row.id())) {
                throw new IllegalStateException("no phone for " + row.id() + " on attempt " + ctx.attempt());
            }
            return record.handle(row, ctx);
        });
        await().until(() -> a.rangeTask(name).snapshot().run().done());
        RangeView view = a.rangeTask(name);
        assertThat(view.snapshot().progress().failed()).isEqualTo(3);
        assertThat(view.snapshot().progress().processed())
                .as("rows that succeeded")
                .isEqualTo(inserted - 3);
        assertThat(failureLog.warnings())
                .as("the first failure is logged, the two of the same kind within a minute are not")
                .singleElement()
                .asString()
                .contains(name + " row ", " failed 3 times and is recorded as failed: no phone for ")
                .contains("/actuator/scan/" + name + " {\"action\": \"requeue\"}");
        assertThat(view.failureCount()).isEqualTo(3);
        assertThat(view.recentFailures(10)).hasSize(3).allSatisfy(f -> {
            assertThat(f.attempts()).as("one try and the tier's two retries").isEqualTo(3);
            assertThat(f.error()).contains("no phone for " + f.id() + " on attempt 3");
        });

        broken.remove(1_500L);
        assertThat(view.requeue(10)).isEqualTo(3);
        assertThat(view.failureCount()).isEqualTo(2);
        broken.clear();
        assertThat(view.requeue(10)).isEqualTo(2);
        assertThat(view.failureCount()).isZero();
        assertThat(users.missed()).isZero();
        await().untilAsserted(() -> {
            assertThat(view.snapshot().progress().failed()).isZero();
            assertThat(view.snapshot().progress().processed()).isEqualTo(inserted);
        });
    }

    /** A handler that ends in an Error (its own recursion too deep) fails its row like an exception. */
    @Test
    void aRowWhoseHandlerThrowsAnErrorIsRecordedFailed() {
        long inserted = users.insertWithGaps(1, 500, 1);
        RangeTask task = task(1_000, Duration.ofMinutes(5), RunMode.ONCE);
        TaskHandler.PerRow record = recording("node-a");
        ScanEngine a = node("node-a", task, (TaskHandler.PerRow) (row, ctx) -> {
            if (row.id() == 250) {
                throw new StackOverflowError("recursion too deep for row " + row.id());
            }
            return record.handle(row, ctx);
        });
        await().until(() -> a.rangeTask(name).snapshot().run().done());
        RangeView view = a.rangeTask(name);
        assertThat(view.snapshot().progress().processed()).isEqualTo(inserted - 1);
        assertThat(view.recentFailures(10)).singleElement().satisfies(f -> {
            assertThat(f.id()).isEqualTo(250);
            assertThat(f.error()).contains("java.lang.StackOverflowError: recursion too deep for row 250");
        });
        assertThat(users.duplicates()).as("rows run twice").isZero();
    }

    /**
     * A node that claimed a range from the cursor and died before it opened it leaves a hole no cursor
     * claim covers again: once the cursor is past the run's ids, a node opens the range and it is
     * taken over like any lapsed one.
     */
    @Test
    void aRangeClaimedButNeverOpenedIsStillRun() {
        long inserted = users.insertWithGaps(1, 3_000, 1);
        RangeTask task = task(1_000, Duration.ofMinutes(5), RunMode.ONCE);
        assertThat(stores.cursor().claim(name, 1, task.rangeSize())).isZero();
        ScanEngine a = node("node-a", task, recording("node-a"));
        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> a.rangeTask(name).snapshot().run().done());
        assertThat(users.missed()).isZero();
        assertThat(users.duplicates()).isZero();
        assertThat(a.rangeTask(name).snapshot().progress().processed()).isEqualTo(inserted);
    }

    /** A DONE run stays done until it is started again; the new run covers the ids as they are then. */
    @Test
    void aDoneRunStartsAgainOnlyWhenAsked() throws Exception {
        users.insertWithGaps(1, 1_500, 1);
        RangeTask task = task(1_000, Duration.ofMinutes(5), RunMode.ONCE);
        // the second run's last row waits until the test asked for a start while it runs
        CountDownLatch asked = new CountDownLatch(1);
        TaskHandler.PerRow record = recording("node-a");
        ScanEngine a = node("node-a", task, (TaskHandler.PerRow) (row, ctx) -> {
            if (row.id() == 5_000) {
                asked.await(30, TimeUnit.SECONDS);
            }
            return record.handle(row, ctx);
        });
        await().until(() -> a.rangeTask(name).snapshot().run().done());
        users.insert(5_000);
        TaskRun second = a.rangeTask(name).start();
        assertThat(second.id()).isEqualTo(2);
        assertThat(second.range().highId()).isEqualTo(5_000);
        assertThat(a.rangeTask(name).start()).as("a running run is left alone").isEqualTo(second);
        asked.countDown();
        await().until(() -> {
            RangeSnapshot s = a.rangeTask(name).snapshot();
            return s.run().id() == 2 && s.run().done();
        });
        assertThat(users.jdbc().queryForObject("SELECT COUNT(*) FROM notified WHERE user_id = 5000", Integer.class))
                .isEqualTo(1);
        assertThat(users.duplicates()).isEqualTo(users.users() - 1);
        assertThat(doneLines()).hasSize(2);
        assertThat(stores.cursor().peek(name, 1))
                .as("the first run's cursor is removed")
                .isZero();
    }
}
