package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The engine on one node against a real H2 database. */
class ScanEngineTests {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog leaseLog = new CapturedLog(LeaseKeeper.class.getName());

    DataSource dataSource = TestServers.h2("engine");
    OrderTable table;
    SettableScanClock clock = new SettableScanClock(T0.plusSeconds(1));

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource).recreate(8, true).coordinationTables();
    }

    TaskDefinition.Builder task() {
        return TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(8)
                .pageSize(50)
                .workers(4);
    }

    ScanEngine start(TaskDefinition task, TaskHandler.PerRow handler) {
        return engines.start(
                "node-1", dataSource, task, handler, clock, ScanListener.NONE, Engines.FAST_TTL, Engines.FAST_RENEW);
    }

    TaskHandler.PerRow recordingEffects() {
        AtomicLong seq = new AtomicLong();
        return (row, ctx) -> table.recordEffect(row, ctx, seq.incrementAndGet());
    }

    @Test
    void saysWhichShardsItTook() {
        start(task().build(), recordingEffects());
        await().untilAsserted(() -> assertThat(String.join("\n", leaseLog.messages(java.util.logging.Level.INFO)))
                .contains("Task orders: took shards [")
                .contains("this node holds 8 of 8"));
    }

    @Test
    void processesEveryRowExactlyOnce() {
        table.insert(2000, 97, T0);
        ScanEngine engine = start(task().build(), recordingEffects());
        await().until(() -> table.count("status = 1") == 2000);
        assertThat(table.effects()).isEqualTo(2000);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(engine.task("orders").stats().processed()).isEqualTo(2000);
    }

    @Test
    void failedRowRestsForItsTierIntervalThenDiesAfterTheLastTier() {
        table.insert(20, 5, T0);
        List<Tier> tiers = List.of(Tier.of("0", Duration.ofSeconds(1)), Tier.of("1-2", Duration.ofSeconds(30)));
        AtomicInteger attempts = new AtomicInteger();
        ScanEngine engine = start(task().tiers(tiers).build(), (row, ctx) -> {
            if (row.id() == 7) {
                assertThat(ctx.attempt()).isEqualTo(attempts.incrementAndGet());
                throw new IllegalStateException("gateway said no to " + row.id());
            }
            return null;
        });
        // user 2's later rows 12 and 17 wait for row 7
        await().until(() -> table.count("status = 1") == 17 && retries(7) == 1);
        // the settable clock stands still: no tier comes due, so no probe asks for row 7, until it moves
        TaskStats stats = engine.task("orders").stats();
        long probes = stats.probes();
        long probeHits = stats.probeHits();
        // the settable clock moves the dispatcher's time; a row's rest is measured on the database's
        // clock, so the test moves the row's last update back as far (28 s, not 29: the check below
        // takes real time too), first, so that the probe the clock's move brings sees it
        table.updatedAgo("order_id = 7", Duration.ofSeconds(28));
        clock.advance(Duration.ofSeconds(29));
        // the first tier's probe at 29 s asks the retry tier too, and finds row 7 resting (28 s of 30): no
        // tier found with a row, so no round that could retry it
        await().until(() -> stats.probes() > probes);
        assertThat(stats.probeHits()).isEqualTo(probeHits);
        assertThat(retries(7)).isEqualTo(1);
        // due at 30 s; the retry tier, asked early with the first tier's probe at 29 s, rests until
        // 59 s: a row is retried within its tier's interval of becoming due
        clock.advance(Duration.ofSeconds(31));
        table.updatedAgo("order_id = 7", Duration.ofSeconds(31));
        await().until(() -> retries(7) == 2);
        clock.advance(Duration.ofSeconds(31));
        table.updatedAgo("order_id = 7", Duration.ofSeconds(31));
        await().until(() -> table.count("order_id = 7 AND status = 2") == 1);
        assertThat(retries(7)).isEqualTo(3);
        assertThat(table.jdbc().queryForObject("SELECT last_error FROM tb_order WHERE order_id = 7", String.class))
                .isEqualTo("java.lang.IllegalStateException: gateway said no to 7");
        assertThat(attempts.get()).isEqualTo(3);
        // dead unblocks the key: the poison row is parked, its later rows go on at once
        await().until(() -> table.count("status = 1") == 19);
    }

    @Test
    void keepRetryingNeverGivesUp() {
        table.insert(4, 4, T0);
        List<Tier> tiers = List.of(Tier.of("0", Duration.ofSeconds(1)), Tier.of("1-2", Duration.ofSeconds(10)));
        start(task().tiers(tiers).onExhausted(OnExhausted.KEEP_RETRYING).build(), (row, ctx) -> {
            throw new IllegalStateException("down");
        });
        for (int retries = 1; retries <= 5; retries++) {
            int expected = retries;
            await().until(() -> table.count("retry_count = " + expected) == 4);
            // the dispatcher's time on the settable clock, the rows' rest on the database's
            clock.advance(Duration.ofSeconds(11));
            table.updatedAgo("status = 0", Duration.ofSeconds(11));
        }
        assertThat(table.count("status = 0")).isEqualTo(4);
    }

    @Test
    void returnedOutcomesAreWrittenBack() {
        table.insert(30, 7, T0);
        Map<Long, AtomicInteger> calls = new ConcurrentHashMap<>();
        start(task().ordering(Ordering.NONE).build(), (row, ctx) -> {
            calls.computeIfAbsent(row.id(), id -> new AtomicInteger()).incrementAndGet();
            if (row.id() == 3) {
                return Outcome.dead("bad phone number");
            }
            if (row.id() == 4) {
                return Outcome.skip();
            }
            return row.id() == 5 ? Outcome.retryLater("later") : Outcome.done();
        });
        await().until(() -> table.count("status = 1") == 27);
        assertThat(table.count("order_id = 3 AND status = 2 AND last_error = 'bad phone number'"))
                .isEqualTo(1);
        assertThat(table.count("order_id = 5 AND status = 0 AND retry_count = 1 AND last_error = 'later'"))
                .isEqualTo(1);
        assertThat(table.count("order_id = 4 AND status = 0 AND retry_count = 0"))
                .isEqualTo(1);
        clock.advance(Duration.ofSeconds(4));
        await().until(() -> calls.get(4L).get() >= 2);
    }

    @Test
    void rowsChangingStatusWhilePagingAreNeitherSkippedNorRepeated() {
        table.insert(300, 1, T0);
        TaskHandler.PerRow effects = recordingEffects();
        start(task().shards(8).pageSize(10).workers(1).build(), (row, ctx) -> {
            if (row.id() == 5) {
                table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id BETWEEN 100 AND 149");
            }
            return effects.handle(row, ctx);
        });
        await().until(() -> table.count("status = 1") == 300);
        assertThat(table.effects()).isEqualTo(250);
        assertThat(table.duplicateEffects()).isZero();
        assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM effect WHERE order_id BETWEEN 100 AND 149", Integer.class))
                .isZero();
    }

    @Test
    void lanesKeepOneKeysRowsInIdOrder() {
        table.insert(1200, 6, T0);
        start(task().workers(6).pageSize(120).build(), recordingEffects());
        await().until(() -> table.count("status = 1") == 1200);
        List<Map<String, Object>> effects = table.jdbc().queryForList("SELECT user_id, order_id, seq FROM effect");
        Map<Long, Long> lastOrderByUser = new ConcurrentHashMap<>();
        effects.stream()
                .sorted((a, b) -> Long.compare(number(a, "seq"), number(b, "seq")))
                .forEach(e -> {
                    long user = number(e, "user_id");
                    long order = number(e, "order_id");
                    Long previous = lastOrderByUser.put(user, order);
                    assertThat(previous == null || previous < order)
                            .as("user %s ran order %s after %s", user, order, previous)
                            .isTrue();
                });
        assertThat(lastOrderByUser).hasSize(6);
    }

    @Test
    void roundTimeoutWritesBackWhatFinishedAndTheShardMovesOn() throws Exception {
        table.insert(16, 4, T0);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger timeouts = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        ScanListener listener = new ScanListener() {
            @Override
            public void latchTimedOut(String task, int shard) {
                timeouts.incrementAndGet();
            }
        };
        ScanEngine engine = engines.start(
                "node-1",
                dataSource,
                task().roundTimeout(Duration.ofMillis(300))
                        .handlerTimeout(Duration.ofMillis(250))
                        .build(),
                (TaskHandler.PerRow) (row, ctx) -> {
                    if (row.id() == 2) {
                        // a slow call, under the handler timeout, that takes most of the round's time
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
                    }
                    if (row.id() == 6 && calls.incrementAndGet() == 1) {
                        release.await(20, TimeUnit.SECONDS);
                    }
                    return Outcome.done();
                },
                clock,
                listener,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        // user 2's lane runs row 2, then row 6 is still in its handler (within the handler timeout)
        // when the round's time is up: row 2 is written done, row 6 failed, rows 10 and 14 wait
        // behind it; the other shards' rounds are not held up
        await().until(() -> timeouts.get() >= 1 && table.count("status = 1") == 13 && retries(6) == 1);
        assertThat(table.jdbc().queryForObject("SELECT last_error FROM tb_order WHERE order_id = 6", String.class))
                .startsWith("round timed out after PT0.3S");
        assertThat(table.count("order_id IN (10, 14) AND status = 0 AND retry_count = 0"))
                .isEqualTo(2);
        TaskStats stats = engine.task("orders").stats();
        assertThat(stats.latchTimeouts()).isEqualTo(timeouts.get());
        assertThat(stats.handlerTimeouts())
                .as("a round timeout is not a handler timeout")
                .isZero();
        release.countDown();
        clock.advance(Duration.ofSeconds(31));
        table.updatedAgo("order_id = 6", Duration.ofSeconds(31));
        await().until(() -> table.count("status = 1") == 16);
        assertThat(calls.get()).isEqualTo(2);
        assertThat(stats.inFlight()).isZero();
    }

    /**
     * The node's clock here is eleven months behind the database's: a failed row that rests a
     * minute by the database's clock shows a minute's age, not none (the node's clock would put its
     * last update in the future).
     */
    @Test
    void theBacklogAgesRowsByTheDatabasesClockNotTheNodes() {
        table.insert(4, 4, T0);
        table.jdbc().update("UPDATE tb_order SET retry_count = 1 WHERE order_id IN (1, 2)");
        table.updatedAgo("order_id IN (1, 2)", Duration.ofSeconds(60));
        List<Tier> tiers = List.of(Tier.of("0", Duration.ofSeconds(1)), Tier.of("1-5", Duration.ofMinutes(10)));
        ScanEngine engine = start(task().tiers(tiers).build(), recordingEffects());
        await().until(() -> table.count("status = 1") == 2);
        Backlog backlog = engine.task("orders").countBacklog();
        assertThat(backlog.tiers())
                .filteredOn(tier -> tier.retries().equals("1-5"))
                .singleElement()
                .satisfies(tier -> assertThat(tier.oldestPendingAgeSeconds()).isBetween(60L, 90L));
    }

    @Test
    void batchHandlerGetsALanesRowsAndOneFailureFailsThemAll() {
        table.insert(40, 40, T0);
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        engines.start(
                "node-1",
                dataSource,
                task().build(),
                (TaskHandler.Batch) (rows, ctx) -> {
                    sizes.add(rows.size());
                    if (rows.stream().anyMatch(r -> r.id() == 11)) {
                        throw new IllegalArgumentException("batch rejected");
                    }
                    return null;
                },
                clock,
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        await().until(() -> table.count("status = 1 OR retry_count = 1") == 40);
        assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(40);
        assertThat(table.count("order_id = 11 AND retry_count = 1")).isEqualTo(1);
    }

    @Test
    void stopReleasesEveryLease() {
        table.insert(10, 10, T0);
        ScanEngine engine = start(task().build(), recordingEffects());
        await().until(() -> engine.task("orders").ownedShards().size() == 8);
        engine.stop();
        assertThat(engine.coordinator().leases("orders")).hasSize(8).allSatisfy(l -> assertThat(l.owner())
                .isNull());
    }

    private int retries(long id) {
        return table.jdbc().queryForObject("SELECT retry_count FROM tb_order WHERE order_id = ?", Integer.class, id);
    }

    private static long number(Map<String, Object> row, String column) {
        return row.entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase(column))
                .findFirst()
                .map(e -> ((Number) e.getValue()).longValue())
                .orElseThrow();
    }
}
