package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A row's back-off is written and compared with the database's clock, never a node's: two engines
 * whose {@link ScanClock}s are 30 s ahead and 30 s behind take turns on the same shards, and every
 * failed row is retried no sooner than its tier's interval after its failure, and within that
 * interval plus a few probes, both measured on the database's clock (the handler records each
 * attempt with it). The shards change owner while the rows rest, from the slow node to the fast one
 * (with node clocks a fast reader took the slow writer's rows as due at once) and back (a slow
 * reader waited the interval plus the skew of 60 s). One small subclass per database: the
 * statements that stamp and compare differ.
 */
abstract class SkewedClocksContractTests {

    static final Duration SKEW = Duration.ofSeconds(30);
    static final Duration REST = Duration.ofSeconds(5);
    static final int ROWS = 40;

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource dataSource = dataSource();
    final OrderTable table = new OrderTable(dataSource).recreate(4, true).coordinationTables();

    /** The database under test, a database of its own for this class. */
    abstract DataSource dataSource();

    /** The database's clock at this moment (not at its transaction's start), in epoch milliseconds. */
    abstract String epochMillisNow();

    final TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .shards(4)
            .tiers(List.of(Tier.of("0", Duration.ofMillis(500)), Tier.of("1-5", REST)))
            .build();

    /** Records each attempt on the database's clock; the first two of each row fail, the third succeeds. */
    final TaskHandler.PerRow handler = (row, ctx) -> {
        table.jdbc()
                .update(
                        "INSERT INTO attempt (order_id, node, at_ms) VALUES (?, ?, " + epochMillisNow() + ")",
                        row.id(),
                        ctx.node());
        if (ctx.attempt() < 3) {
            throw new IllegalStateException("gateway busy, attempt " + ctx.attempt());
        }
        return Outcome.done();
    };

    @Test
    void aFailedRowRestsItsTierIntervalByTheDatabasesClockWhateverTheNodesClocksSay() {
        table.jdbc().execute("DROP TABLE IF EXISTS attempt");
        table.jdbc().execute("CREATE TABLE attempt (order_id BIGINT NOT NULL, node VARCHAR(32), at_ms BIGINT)");
        table.insert(ROWS, ROWS, Instant.now());

        ScanEngine slow = start("slow", SKEW.negated());
        await().until(() -> table.count("retry_count = 1") == ROWS);
        slow.stop();
        ScanEngine fast = start("fast", SKEW);
        await().until(() -> fast.task("orders").ownedShards().size() == 4);
        long fastOwnsAll = dbMillis();
        long lastFailure = table.jdbc().queryForObject("SELECT MAX(at_ms) FROM attempt", Long.class);
        assertThat(fastOwnsAll - lastFailure)
                .as("the fast node must hold every shard before the rows' rest is over, or the race was not forced")
                .isLessThan(REST.toMillis());
        await().until(() -> table.count("retry_count = 2") == ROWS);
        fast.stop();
        assertRested("slow", "fast");

        start("slow-again", SKEW.negated());
        // with the nodes' clocks the slow node took the fast node's failures as due only after 65 s
        await().atMost(REST.multipliedBy(4)).until(() -> table.count("status = 1") == ROWS);
        assertRested("fast", "slow-again");
    }

    /** Every row's attempt on {@code retrier} came its tier's interval (and not three) after its failure on {@code failer}. */
    private void assertRested(String failer, String retrier) {
        List<String> early = new ArrayList<>();
        List<String> late = new ArrayList<>();
        List<Long> rests = new ArrayList<>();
        Map<Long, List<Attempt>> attempts = attempts();
        assertThat(attempts).hasSize(ROWS);
        attempts.forEach((id, tries) -> {
            Attempt failed = tries.stream()
                    .filter(a -> a.node().equals(failer))
                    .findFirst()
                    .orElseThrow();
            Attempt retried = tries.stream()
                    .filter(a -> a.node().equals(retrier))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("row " + id + " was not retried on " + retrier));
            long rested = retried.atMillis() - failed.atMillis();
            rests.add(rested);
            String gap = "row " + id + ": " + rested + " ms";
            if (rested < REST.toMillis()) {
                early.add(gap);
            } else if (rested > REST.toMillis() * 3) {
                late.add(gap);
            }
        });
        System.out.println(getClass().getSimpleName() + ": " + failer + " -> " + retrier + ", rested "
                + rests.stream().mapToLong(Long::longValue).min().orElse(-1) + "-"
                + rests.stream().mapToLong(Long::longValue).max().orElse(-1) + " ms on the database's clock (tier "
                + REST + ")");
        assertThat(early)
                .as("retried on %s before the tier's %s had passed since failing on %s", retrier, REST, failer)
                .isEmpty();
        assertThat(late)
                .as("retried on %s long after the tier's %s had passed since failing on %s", retrier, REST, failer)
                .isEmpty();
    }

    private ScanEngine start(String node, Duration skew) {
        return engines.start(
                node,
                dataSource,
                task,
                handler,
                new SkewedClock(skew),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }

    private long dbMillis() {
        return table.jdbc().queryForObject("SELECT " + epochMillisNow(), Long.class);
    }

    private Map<Long, List<Attempt>> attempts() {
        return table
                .jdbc()
                .query(
                        "SELECT order_id, node, at_ms FROM attempt ORDER BY order_id, at_ms",
                        (rs, n) -> new Attempt(rs.getLong(1), rs.getString(2), rs.getLong(3)))
                .stream()
                .collect(Collectors.groupingBy(Attempt::id, java.util.TreeMap::new, Collectors.toList()));
    }

    private record Attempt(long id, String node, long atMillis) {}

    /** The system clock shifted by {@code skew}, as a node whose clock is off; its monotonic reading is the system's. */
    private record SkewedClock(Duration skew) implements ScanClock {

        @Override
        public Instant now() {
            return Instant.now().plus(skew);
        }

        @Override
        public long nanos() {
            return System.nanoTime();
        }
    }
}
