package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.CountingDataSource;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RecordingTaskStore;
import io.shardscan.testsupport.TestTime;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the idle probe promises, on each database: a node whose 64 shards are all idle sends at most
 * one statement per second for the task (counted on the client side, the backlog counter included),
 * and still finds a row inserted into any of them within one tier interval, and a failed row once
 * its retry tier's interval has passed, the retry tier asked in the first tier's probes. One small
 * subclass per database.
 */
abstract class IdleProbeContractTests {

    static final int SHARDS = 64;

    @RegisterExtension
    final Engines engines = new Engines();

    OrderTable table;
    CountingDataSource counting;
    RecordingTaskStore store;

    abstract DataSource dataSource();

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource()).recreate(SHARDS, true).coordinationTables();
        counting = new CountingDataSource(dataSource());
    }

    TaskDefinition task(List<Tier> tiers) {
        return TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .tiers(tiers)
                .build();
    }

    /**
     * An engine whose task store counts its statements and records its probes ({@link #store}); the
     * leases go through a store of their own.
     */
    ScanEngine start(TaskDefinition task, TaskHandler handler, Duration ttl, Duration renew) {
        store = new RecordingTaskStore(new JdbcTaskStore(counting.dataSource()), "order_id");
        return engines.start(
                "node-a",
                store,
                new JdbcShardCoordinator(dataSource()),
                new ScanEngine.ScanTask(task, handler),
                ScanClock.system(),
                ScanListener.NONE,
                ttl,
                renew);
    }

    /** Waits until the node holds every shard and has probed them together {@code probes} times. */
    static void awaitIdle(ScanEngine engine, long probes) {
        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> engine.task("orders").ownedShards().size() == SHARDS
                        && engine.task("orders").stats().probes() >= probes);
    }

    @Test
    void findsARowInsertedIntoAnyOfSixtyFourIdleShardsWithinOneTierInterval() {
        Duration interval = Duration.ofSeconds(1);
        Map<Long, Long> startedNanos = new ConcurrentHashMap<>();
        ScanEngine engine = start(
                task(List.of(
                        Tier.of("0", interval),
                        Tier.of("1-5", Duration.ofSeconds(30)),
                        Tier.of("6-15", Duration.ofSeconds(60)))),
                (TaskHandler.PerRow) (row, ctx) -> {
                    startedNanos.put(row.id(), System.nanoTime());
                    return Outcome.done();
                },
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        awaitIdle(engine, 2);
        long seed = System.nanoTime();
        List<Integer> shards =
                new ArrayList<>(IntStream.range(0, SHARDS).boxed().toList());
        Collections.shuffle(shards, new Random(seed));
        List<String> late = new CopyOnWriteArrayList<>();
        long hitsBefore = engine.task("orders").stats().probeHits();
        List<Integer> tried = shards.subList(0, 8);
        for (int shard : tried) {
            long id = 1000 + shard;
            table.jdbc()
                    .update(
                            "INSERT INTO tb_order (order_id, user_id, phone, updated_at) VALUES (?, ?, ?, ?)",
                            id,
                            shard + SHARDS * 7L,
                            "+1555" + id,
                            Timestamp.from(Instant.now()));
            long inserted = System.nanoTime();
            await().until(() -> startedNanos.containsKey(id));
            Duration took = Duration.ofNanos(startedNanos.get(id) - inserted);
            // one interval until the next probe, and a margin for a loaded machine
            if (took.compareTo(interval.plusSeconds(3)) > 0) {
                late.add("shard " + shard + " after " + took.toMillis() + " ms");
            }
        }
        assertThat(late)
                .as("rows picked up later than the interval + 3 s (seed %d)", seed)
                .isEmpty();
        assertThat(engine.task("orders").stats().probeHits() - hitsBefore)
                .as("each row was found by the probe of the idle shards, not by a fetch of its own")
                .isGreaterThanOrEqualTo(tried.size());
    }

    /**
     * The row fails at once; it is due a retry interval later, its tier is asked at most a retry
     * interval apart (in the first tier's probes, up to a first-tier interval early), and a tier found
     * early is fetched when its own due time comes, at most a first-tier interval later.
     */
    @Test
    void aFailedRowOfAnIdleShardRunsAgainOnceItsTierIntervalPassed() {
        Duration first = Duration.ofSeconds(1);
        Duration retry = Duration.ofSeconds(2);
        List<Long> attempts = new CopyOnWriteArrayList<>();
        ScanEngine engine = start(
                task(List.of(Tier.of("0", first), Tier.of("1-5", retry))),
                (TaskHandler.PerRow) (row, ctx) -> {
                    attempts.add(System.nanoTime());
                    return attempts.size() == 1 ? Outcome.retryLater("first try fails") : Outcome.done();
                },
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        awaitIdle(engine, 2);
        long hitsBefore = engine.task("orders").stats().probeHits();
        table.insert(5, 1, 11, Instant.now());
        await().until(() -> table.count("status = 1") == 1);
        assertThat(attempts).hasSize(2);
        Duration between = Duration.ofNanos(attempts.get(1) - attempts.get(0));
        assertThat(between)
                .as("no sooner than the retry tier's interval, and within it, another one and a first-tier"
                        + " interval plus a margin")
                .isGreaterThanOrEqualTo(retry.minusMillis(50))
                .isLessThanOrEqualTo(retry.multipliedBy(2).plus(first).plusSeconds(3));
        assertThat(engine.task("orders").stats().probeHits() - hitsBefore)
                .as("the fresh row and its retry were both found by probes")
                .isGreaterThanOrEqualTo(2);
        assertEveryProbeAskedTheFirstTier();
    }

    /**
     * Every probe so far asked the first tier, and some asked the retry tier too: the retry tier
     * rode along with the first tier's probes instead of sending statements of its own.
     */
    void assertEveryProbeAskedTheFirstTier() {
        List<Set<Integer>> probes = probedTiers(0);
        assertThat(probes)
                .as("the tiers (by their least retry count) that each probe asked")
                .isNotEmpty()
                .allSatisfy(tiers -> assertThat(tiers).contains(0))
                .anySatisfy(tiers -> assertThat(tiers).contains(1));
    }

    /** The tiers, by their least retry count, that each probe from the {@code from}-th on asked. */
    List<Set<Integer>> probedTiers(int from) {
        List<List<FetchRequest>> probes = store.probes();
        return probes.subList(Math.min(from, probes.size()), probes.size()).stream()
                .map(requests -> (Set<Integer>)
                        requests.stream().map(FetchRequest::minRetries).collect(Collectors.toCollection(TreeSet::new)))
                .toList();
    }

    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new java.util.TreeMap<>();
        after.forEach((kind, count) -> {
            long d = count - before.getOrDefault(kind, 0L);
            if (d > 0) {
                delta.put(kind, d);
            }
        });
        return delta;
    }
}
