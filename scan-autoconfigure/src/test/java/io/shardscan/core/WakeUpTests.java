package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.WakeChannel;
import io.shardscan.core.task.IndexCheck;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.LeaseTicks;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.WakeNodeMain;
import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Wake-ups on the node that owns the shard, on PostgreSQL: the row is handled at once instead of at
 * tier 0's next poll a minute later, a burst of wake-ups makes a handful of rounds, and a wake-up
 * that cannot name a shard says why.
 */
@ServerTests
class WakeUpTests {

    static final String TASK = "order-sms";
    static final int SHARDS = 8;
    static final int BURST = 10_000;

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog log = new CapturedLog(Wakes.class.getName());

    final DataSource dataSource = TestServers.postgresDatabase("wake_local");
    OrderTable table;
    final AtomicInteger freshRounds = new AtomicInteger();
    final AtomicLong seq = new AtomicLong();
    volatile int watched = -1;
    /** While set, a handler call holds until it opens, after opening {@link #inHandler}. */
    volatile CountDownLatch holdHandler;

    final CountDownLatch inHandler = new CountDownLatch(1);

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
    }

    private ScanEngine start() {
        return start(WakeNodeMain.task(SHARDS));
    }

    private ScanEngine start(TaskDefinition task) {
        ScanListener rounds = new ScanListener() {
            @Override
            public Timing roundStarted(String task, int shard, Tier tier) {
                if (shard == watched && tier.minRetries() == 0) {
                    freshRounds.incrementAndGet();
                }
                return Timing.NONE;
            }
        };
        TaskHandler.PerRow handler = (row, ctx) -> {
            CountDownLatch release = holdHandler;
            if (release != null) {
                inHandler.countDown();
                release.await();
            }
            return table.recordEffect(row, ctx, seq.incrementAndGet());
        };
        ScanEngine engine = engines.start(
                "node-a", dataSource, task, handler, ScanClock.system(), rounds, Engines.FAST_TTL, Engines.FAST_RENEW);
        // every tier ran its first pass and rests for a minute
        engine.task(TASK).drain(Duration.ofSeconds(30));
        return engine;
    }

    @Test
    void aBurstOfWakeUpsForOneShardMakesAHandfulOfRounds() {
        ScanEngine engine = start();
        ScanTasks tasks = new ScanTasks(engine);
        long key = 3 + 5L * SHARDS;
        watched = 3;
        insert(1, key);
        // no poll picks the rows up meanwhile: the node's ticks wake its dispatcher, which finds no tier
        // due (the interval is a minute); only a wake-up makes a shard due now
        LeaseTicks.awaitNext(2, engine.task(TASK));
        assertThat(table.effects()).isZero();

        // the first wake-up starts a round, whose handler holds; the burst comes while it runs, as it
        // does on a busy machine where the wake-ups of a loop spread over many rounds' time
        CountDownLatch release = new CountDownLatch(1);
        holdHandler = release;
        tasks.wake(TASK, key);
        await("the first round's handler runs").until(() -> inHandler.getCount() == 0);
        int before = freshRounds.get();
        for (int i = 0; i < BURST; i++) {
            tasks.wake(TASK, key);
        }
        holdHandler = null;
        release.countDown();
        await("the woken row is handled").until(() -> table.effects() == 1);
        // the rounds the burst triggered ran: each tick wakes the dispatcher, which would start any still due
        LeaseTicks.awaitNext(2, engine.task(TASK));
        int rounds = freshRounds.get() - before;
        System.out.printf(
                "WakeUpTests: %d wake-ups of one shard while its round ran made %d more rounds%n", BURST, rounds);
        assertThat(rounds)
                .as("rounds of shard 3's fresh tier for %d wake-ups while a round ran: they coalesce into one", BURST)
                .isEqualTo(1);
    }

    @Test
    void aWakeUpThatNamesNoShardSaysWhy() {
        ScanTasks tasks = new ScanTasks(start());

        assertThatThrownBy(() -> tasks.wake("no-such-task", 1L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no task 'no-such-task'; known: [order-sms]");
        assertThatThrownBy(() -> tasks.wakeRow(TASK, 17))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shards its rows by user_id, not by the id column order_id")
                .hasMessageContaining("call wake(\"order-sms\", user_id)");
        assertThatThrownBy(() -> tasks.wake(TASK, "17"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pass the row's user_id as a Long or Integer");
        assertThatThrownBy(() -> tasks.wake(TASK, new BigDecimal("1.5")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a shard key is the integer value of user_id");
    }

    @Test
    void wakingSeveralKeysWakesEachOfTheirShards() {
        ScanEngine engine = start();
        ScanTasks tasks = new ScanTasks(engine);
        insert(1, 1);
        insert(2, 2 + SHARDS);
        insert(3, 5);
        // no poll picks the rows up meanwhile: the node's ticks wake its dispatcher, which finds no tier
        // due (the interval is a minute); only a wake-up makes a shard due now
        LeaseTicks.awaitNext(2, engine.task(TASK));
        assertThat(table.effects()).isZero();

        tasks.wake(TASK, List.of(1L, 2 + SHARDS, BigDecimal.valueOf(5)));

        await("every woken row is handled").until(() -> table.effects() == 3);
        assertThat(log.messages(Level.INFO))
                .as("the start says which transport wake-ups take")
                .containsExactly("Shardscan wake-ups: " + WakeChannel.NONE.description());
    }

    @Test
    void aTaskShardedByItsIdIsWokenByTheRowsId() {
        // the shard key is the id: the id alone says the shard
        TaskDefinition byId = TaskDefinition.builder(TASK)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("order_id")
                .shards(SHARDS)
                .indexCheck(IndexCheck.OFF)
                .tiers(WakeNodeMain.task(SHARDS).tiers())
                .build();
        ScanEngine engine = start(byId);
        ScanTasks tasks = new ScanTasks(engine);
        insert(13, 1);
        insert(14, 1);
        insert(23, 1);
        // no poll picks the rows up meanwhile: the node's ticks wake its dispatcher, which finds no tier
        // due (the interval is a minute); only a wake-up makes a shard due now
        LeaseTicks.awaitNext(2, engine.task(TASK));
        assertThat(table.effects()).isZero();

        tasks.wakeRow(TASK, 13);
        tasks.wakeRows(TASK, List.of(14L, 23L));

        await("every woken row is handled").until(() -> table.effects() == 3);
    }

    private void insert(long id, long key) {
        table.jdbc()
                .update(
                        "INSERT INTO tb_order (order_id, user_id, phone, updated_at) VALUES (?, ?, '+1555', ?)",
                        id,
                        key,
                        Timestamp.from(Instant.now()));
    }
}
