package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanBacklogs;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The probe's SQL on PostgreSQL, and, here only (they test the engine, the same on every database),
 * what an idle node costs and that a triggered shard skips the probe.
 */
@ServerTests
class PostgresIdleProbeTests extends IdleProbeContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("idle_probe");
    }

    @Test
    void anIdleNodeSendsAtMostOneStatementPerSecondForATaskOf64ShardsWithTheDefaultTiers() {
        // the default tiers, lease TTL and renew interval, and the endpoint's backlog counter
        ScanEngine engine = start(
                task(TaskDefinition.DEFAULT_TIERS),
                (TaskHandler.PerRow) (row, ctx) -> Outcome.done(),
                Duration.ofSeconds(6),
                Duration.ofSeconds(2));
        ScanBacklogs backlogs = new ScanBacklogs(engine, Duration.ofSeconds(10));
        backlogs.start();
        try {
            // past the first fetches of the claim and the first backlog count
            awaitIdle(engine, 2);
            long before = counting.total();
            Map<String, Long> kindsBefore = counting.byKind();
            long probesBefore = engine.task("orders").stats().probes();
            int probeCallsBefore = store.probes().size();
            long started = System.nanoTime();
            // four probes of the first tier (3 s each), however long a loaded machine makes them; a slow
            // machine only lowers the rate measured here
            await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                    .until(() -> engine.task("orders").stats().probes() - probesBefore >= 4);
            double seconds = (System.nanoTime() - started) / 1e9;
            long statements = counting.total() - before;
            Map<String, Long> kinds = delta(kindsBefore, counting.byKind());
            double perSecond = statements / seconds;
            String report = String.format(
                    "%.2f statements/s over %.1f s (%d statements): %s", perSecond, seconds, statements, kinds);
            System.out.println(getClass().getSimpleName() + ": " + report);
            assertThat(engine.task("orders").ownedShards())
                    .as("the idle node keeps its shards")
                    .hasSize(SHARDS);
            assertThat(perSecond).as(report).isLessThanOrEqualTo(1.0);
            long probes = engine.task("orders").stats().probes() - probesBefore;
            // (one probe may be between its statement and its count while the two are read)
            assertThat((long) store.probes().size() - probeCallsBefore)
                    .as("each probe asks all 64 shards and the three tiers in one statement: %s", report)
                    .isBetween(probes - 1, probes + 1);
            assertThat(probes)
                    .as("at most one probe per first-tier interval: %s", report)
                    .isLessThanOrEqualTo((long) (seconds / 3) + 2);
            assertThat(kinds.entrySet().stream()
                            .filter(e -> e.getKey().contains("paused"))
                            .mapToLong(Map.Entry::getValue)
                            .sum())
                    .as("an idle node reads the pause every 5 renew intervals: %s", report)
                    .isLessThanOrEqualTo((long) (seconds / 10) + 1);
            assertThat(kinds.entrySet().stream()
                            .filter(e -> e.getKey().contains("COUNT("))
                            .mapToLong(Map.Entry::getValue)
                            .sum())
                    .as("a quiet backlog is counted once a minute (3 statements): %s", report)
                    .isLessThanOrEqualTo(3L * ((long) (seconds / 60) + 1));
        } finally {
            backlogs.stop();
        }
    }

    /**
     * Short tiers of 0.5 s / 1 s / 2 s over eight probes with every shard idle: the slower tiers ride along
     * with the first tier's probes, so the probes are one per first-tier interval (without that, the
     * tiers' own probes would add three quarters again), each asks the first tier, and a row failed into
     * the second tier is still found by one.
     */
    @Test
    void theSlowerTiersRideAlongWithTheFirstTiersProbeInsteadOfProbingAlone() {
        Duration first = Duration.ofMillis(500);
        ScanEngine engine = start(
                task(List.of(
                        Tier.of("0", first),
                        Tier.of("1-5", Duration.ofSeconds(1)),
                        Tier.of("6-15", Duration.ofSeconds(2)))),
                (TaskHandler.PerRow) (row, ctx) -> Outcome.done(),
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        awaitIdle(engine, 3);
        int from = store.probes().size();
        long probesBefore = engine.task("orders").stats().probes();
        long hitsBefore = engine.task("orders").stats().probeHits();
        long started = System.nanoTime();
        // a row that failed once a minute ago: due at once in the second tier of shard 9
        table.jdbc()
                .update(
                        "INSERT INTO tb_order (order_id, user_id, phone, updated_at, retry_count) VALUES (?, ?, ?, ?, 1)",
                        77,
                        9,
                        "+155577",
                        Timestamp.from(Instant.now().minusSeconds(60)));
        // eight probes of the first tier, however long a loaded machine makes them: a slow machine only
        // lowers the rate measured here
        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> engine.task("orders").stats().probes() - probesBefore >= 8);
        double windows = (System.nanoTime() - started) / (double) first.toNanos();
        long probes = engine.task("orders").stats().probes() - probesBefore;
        List<Set<Integer>> asked = probedTiers(from);
        String report = String.format("%d probes in %.1f first-tier intervals: %s", probes, windows, asked);
        assertThat(probes).as("one probe per first-tier interval: %s", report).isLessThanOrEqualTo((long) windows + 2);
        assertThat(asked)
                .as("each probe asks the first tier, the others ride along: %s", report)
                .allSatisfy(tiers -> assertThat(tiers).contains(0))
                .anySatisfy(tiers -> assertThat(tiers).contains(1, 6));
        await().until(() -> table.count("status = 1") == 1);
        assertThat(engine.task("orders").stats().probeHits() - hitsBefore)
                .as("the failed row was found by a probe")
                .isPositive();
    }

    @Test
    void aTriggeredIdleShardFetchesAtOnceInsteadOfWaitingForTheNextProbe() {
        Duration interval = Duration.ofSeconds(10);
        Map<Long, Long> startedNanos = new ConcurrentHashMap<>();
        ScanEngine engine = start(
                task(List.of(Tier.of("0", interval))),
                (TaskHandler.PerRow) (row, ctx) -> {
                    startedNanos.put(row.id(), System.nanoTime());
                    return Outcome.done();
                },
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
        // right after a probe: the next one is an interval away
        awaitIdle(engine, 1);
        long hitsBefore = engine.task("orders").stats().probeHits();
        table.insert(7, 1, 11, Instant.now());
        long inserted = System.nanoTime();
        engine.task("orders").trigger();
        await().until(() -> startedNanos.containsKey(7L));
        assertThat(Duration.ofNanos(startedNanos.get(7L) - inserted))
                .as("a wake-up's latency: well within the 10 s until the next probe")
                .isLessThan(Duration.ofSeconds(5));
        assertThat(engine.task("orders").stats().probeHits())
                .as("fetched by the triggered round, not found by a probe")
                .isEqualTo(hitsBefore);
    }
}
