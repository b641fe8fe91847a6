package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.actuate.ScanBacklogs;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The probe's SQL on PostgreSQL, and, here only (they test the engine, the same on every database),
 * what an idle node costs and that a triggered shard skips the probe.
 */
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
            // past the first fetches of the claim and the first backlog counts
            awaitIdle(engine, 5);
            long before = counting.total();
            Map<String, Long> kindsBefore = counting.byKind();
            long probesBefore = engine.task("orders").stats().probes();
            long started = System.nanoTime();
            // the node keeps all its shards and stays idle over the window
            await().during(Duration.ofSeconds(20))
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> engine.task("orders").ownedShards().size() == SHARDS);
            double seconds = (System.nanoTime() - started) / 1e9;
            long statements = counting.total() - before;
            Map<String, Long> kinds = delta(kindsBefore, counting.byKind());
            double perSecond = statements / seconds;
            String report = String.format(
                    "%.2f statements/s over %.1f s (%d statements): %s", perSecond, seconds, statements, kinds);
            System.out.println(getClass().getSimpleName() + ": " + report);
            assertThat(perSecond).as(report).isLessThanOrEqualTo(1.0);
            long probes = engine.task("orders").stats().probes() - probesBefore;
            assertThat(probes)
                    .as("one probe per tier interval for all 64 shards: %s", report)
                    .isBetween((long) (seconds / 3) - 2, (long) (seconds / 3) + (long) (seconds / 30) + 3);
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

    @Test
    void aTriggeredIdleShardFetchesAtOnceInsteadOfWaitingForTheNextProbe() {
        Duration interval = Duration.ofSeconds(20);
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
        await().atMost(Duration.ofSeconds(30)).until(() -> startedNanos.containsKey(7L));
        assertThat(Duration.ofNanos(startedNanos.get(7L) - inserted))
                .as("a wake-up's latency: well within the 20 s until the next probe")
                .isLessThan(Duration.ofSeconds(10));
        assertThat(engine.task("orders").stats().probeHits())
                .as("fetched by the triggered round, not found by a probe")
                .isEqualTo(hitsBefore);
    }
}
