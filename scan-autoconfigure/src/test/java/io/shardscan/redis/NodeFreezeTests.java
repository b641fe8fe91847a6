package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.testsupport.ChaosTests;
import io.shardscan.testsupport.NodeProcesses;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three nodes as separate JVMs on one PostgreSQL database and one Redis, with slow handlers and a large
 * page so that a round lasts many seconds; one node is frozen with SIGSTOP for three lease TTLs in the
 * middle of its rounds, as a long GC pause or a stalled VM would, and then continued. Its shards move
 * to the others while it stands still; once it runs again it must fence itself off and rejoin. No row
 * may be lost, no lease epoch may be written by two nodes, and, because outcomes are written back at
 * least every commit interval during a long round, the rows run twice must be no more than those in
 * handlers and those finished in the last interval.
 */
@ChaosTests
class NodeFreezeTests {

    static final String TASK = "order-sms";
    static final String VICTIM = "node-b";
    /**
     * 625 rows a shard, three rounds each: a shard assigned back to the woken node still has a page left
     * when its round on another node ends, even when the freeze comes late (measured: thousands of rows
     * for the woken node; with one round a shard it got none).
     */
    static final int ROWS = 40_000;

    static final int SHARDS = 64;
    /** NodeMain's task keeps the default workers. */
    static final int WORKERS = 8;
    /** A long round: a page on one worker takes 5 s, twenty commit intervals. */
    static final int PAGE_SIZE = 250;

    static final Duration HANDLER_DELAY = Duration.ofMillis(20);
    static final Duration LEASE_TTL = Duration.ofSeconds(6);
    /** The documented default of {@code scan.tasks.<name>.commit-interval}. */
    static final Duration COMMIT_INTERVAL = Duration.ofMillis(250);

    static final int ROWS_PER_COMMIT_INTERVAL = (int) (WORKERS * COMMIT_INTERVAL.toNanos() / HANDLER_DELAY.toNanos());
    /**
     * The rows a frozen node may leave handled but not written back: those in its handlers and those
     * finished in the last commit interval, twice over for a write-back that was itself under way.
     */
    static final int MAX_REDO = 2 * (WORKERS + ROWS_PER_COMMIT_INTERVAL);
    /**
     * Without write-backs during a round the victim soon has this many handled rows pending; with them
     * it stays near {@code WORKERS + ROWS_PER_COMMIT_INTERVAL} and is frozen after the poll limit, at a
     * random moment of its rounds.
     */
    static final int FREEZE_AT_HANDLED_PENDING = 400;

    static final Duration FREEZE_POLL_LIMIT = Duration.ofSeconds(3);
    static final Duration FROZEN_FOR = LEASE_TTL.multipliedBy(3);
    static final int MIN_EFFECTS_AFTER_RESUME = 50;
    static final Path LOGS = Path.of("target", "node-freeze");

    final DataSource dataSource = TestServers.postgresDatabase("node_freeze");
    OrderTable table;
    NodeProcesses nodes;

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource)
                .recreate(SHARDS, true)
                .coordinationTables()
                .insert(ROWS, 15_000, Instant.now().minusSeconds(5));
        nodes = new NodeProcesses(TASK, TestServers.postgresEndpoint("node_freeze"), TestServers.redis(), LOGS);
    }

    @AfterEach
    void tearDown() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void frozenNodeFencesItselfOffRejoinsAndLeavesOnlyACommitIntervalToRedo() throws IOException {
        long startedAt = System.nanoTime();
        for (String node : List.of("node-a", "node-b", "node-c")) {
            nodes.launch(node, HANDLER_DELAY, PAGE_SIZE);
        }
        nodes.awaitReady();
        nodes.awaitBalanced(SHARDS, 3, Duration.ofSeconds(60));
        await("some progress")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> table.count("status = 1") >= 1_000);

        awaitManyHandledRowsPending(VICTIM);
        nodes.suspend(VICTIM);
        long frozenAt = System.nanoTime();
        int doneAtFreeze = table.count("status = 1");
        int handledPendingAtFreeze = handledPending(VICTIM);
        int victimShards = nodes.shardsOf(VICTIM).size();
        assertThat(doneAtFreeze).as("rows done when %s was frozen", VICTIM).isLessThan(ROWS);

        long takenOverAt = awaitTakeover(VICTIM);
        int victimEffects = effectsBy(VICTIM);
        holdFrozen(VICTIM, FROZEN_FOR.minusNanos(takenOverAt - frozenAt), victimEffects);
        int logLengthAtResume = nodes.logText(VICTIM).length();
        nodes.resume(VICTIM);
        long resumedAt = System.nanoTime();
        System.out.printf(
                "NodeFreezeTests: %s frozen %d ms after start, with %d of its %d handled rows pending, %d rows"
                        + " done and %d shards; its leases taken over after %d ms; resumed after %d ms%n",
                VICTIM,
                TimeUnit.NANOSECONDS.toMillis(frozenAt - startedAt),
                handledPendingAtFreeze,
                victimEffects,
                doneAtFreeze,
                victimShards,
                TimeUnit.NANOSECONDS.toMillis(takenOverAt - frozenAt),
                TimeUnit.NANOSECONDS.toMillis(resumedAt - frozenAt));

        await("every row done")
                .atMost(TestTime.scaled(Duration.ofSeconds(120)))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> table.count("status = 1") == ROWS);
        long allDoneAt = System.nanoTime();
        int effectsAfterResume = effectsBy(VICTIM) - victimEffects;
        String logAfterResume = nodes.logText(VICTIM).substring(logLengthAtResume);
        int redo = table.duplicateEffects();
        System.out.printf(
                "NodeFreezeTests: all rows done %d ms after the resume (%d ms after the freeze); %d effects;"
                        + " %s recorded %d effects after the resume%n",
                TimeUnit.NANOSECONDS.toMillis(allDoneAt - resumedAt),
                TimeUnit.NANOSECONDS.toMillis(allDoneAt - frozenAt),
                table.effects(),
                VICTIM,
                effectsAfterResume);
        System.out.printf(
                "NodeFreezeTests: redo %d rows run more than once (%d of them run by %s), at most %d allowed%n",
                redo, redoRunBy(VICTIM), VICTIM, MAX_REDO);

        assertThat(table.count("status <> 1")).isZero();
        assertThat(table.ordersWithoutEffect())
                .as("rows without an effect (lost)")
                .isZero();
        assertThat(table.epochsWrittenByTwoNodes(SHARDS))
                .as("(shard, epoch) pairs written by more than one node")
                .isEmpty();
        assertThat(logAfterResume)
                .as("%s's log after the resume (%s)", VICTIM, nodes.log(VICTIM).toAbsolutePath())
                .contains("fenced off");
        assertThat(effectsAfterResume)
                .as("effects %s recorded after the resume", VICTIM)
                .isGreaterThanOrEqualTo(MIN_EFFECTS_AFTER_RESUME);
        assertThat(redo)
                .as(
                        "rows run more than once: at most %d workers plus %d rows of one commit interval, twice over",
                        WORKERS, ROWS_PER_COMMIT_INTERVAL)
                .isLessThanOrEqualTo(MAX_REDO);
    }

    /** Freezing when the victim has many handled rows not yet written back makes a missing write-back show. */
    private void awaitManyHandledRowsPending(String node) {
        long pollingFrom = System.nanoTime();
        await(node + " has " + FREEZE_AT_HANDLED_PENDING + " handled rows pending, or polled long enough")
                .atMost(FREEZE_POLL_LIMIT.plusSeconds(5))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> handledPending(node) >= FREEZE_AT_HANDLED_PENDING
                        || System.nanoTime() - pollingFrom >= FREEZE_POLL_LIMIT.toNanos());
    }

    /** Waits until the frozen node holds no live lease; returns when (monotonic nanos). */
    private long awaitTakeover(String node) {
        await("every lease of the frozen " + node + " taken over")
                .atMost(FROZEN_FOR)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> !nodes.liveOwners().containsValue(node));
        return System.nanoTime();
    }

    /** Keeps the node stopped for {@code remaining}, checking meanwhile that it stays out and writes nothing. */
    private void holdFrozen(String node, Duration remaining, int effects) {
        // a window, as a freeze is a time: while the node stands still it holds nothing and writes nothing
        Duration during = remaining.compareTo(Duration.ofMillis(500)) < 0 ? Duration.ofMillis(500) : remaining;
        await(node + " frozen: it holds no lease and records no effect")
                .during(during)
                .atMost(during.plusSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> !nodes.liveOwners().containsValue(node) && effectsBy(node) == effects);
    }

    /** Rows {@code node} has run (it recorded their effect) that are still pending. */
    private int handledPending(String node) {
        return table.jdbc()
                .queryForObject(
                        "SELECT COUNT(DISTINCT e.order_id) FROM effect e JOIN tb_order o ON o.order_id = e.order_id"
                                + " WHERE e.node = ? AND o.status = 0",
                        Integer.class,
                        node);
    }

    /** Rows run more than once with {@code node} among their runs. */
    private int redoRunBy(String node) {
        return table.jdbc()
                .queryForObject(
                        "SELECT COUNT(*) FROM (SELECT order_id FROM effect GROUP BY order_id HAVING COUNT(*) > 1"
                                + " AND COUNT(CASE WHEN node = ? THEN 1 END) > 0) d",
                        Integer.class,
                        node);
    }

    private int effectsBy(String node) {
        return table.jdbc().queryForObject("SELECT COUNT(*) FROM effect WHERE node = ?", Integer.class, node);
    }
}
