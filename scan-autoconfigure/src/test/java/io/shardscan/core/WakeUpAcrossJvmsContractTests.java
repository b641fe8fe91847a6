package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.spi.WakeChannel;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.testsupport.ChaosTests;
import io.shardscan.testsupport.NodeProcesses;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import io.shardscan.testsupport.WakeNodeMain;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A wake-up reaches the node that owns the shard in another JVM, through the transport a subclass
 * names: tier 0 polls every minute, the row waits unseen, and the wake-up of a node that does not
 * own its shard has the owner handle it within seconds.
 */
@ChaosTests
abstract class WakeUpAcrossJvmsContractTests {

    static final String TASK = "order-sms";
    static final int SHARDS = 8;
    static final Duration PICKUP = Duration.ofSeconds(5);

    DataSource dataSource;
    OrderTable table;
    NodeProcesses nodes;
    ScanEngine local;

    /** {@code redis} or {@code postgres}, as {@link WakeNodeMain} takes it. */
    abstract String transport();

    abstract ShardCoordinator coordinator();

    abstract WakeChannel channel(DataSource dataSource);

    @BeforeEach
    void setUp() {
        String database = "wake_" + transport();
        dataSource = TestServers.postgresDatabase(database);
        table = new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
        nodes = new NodeProcesses(
                TASK,
                TestServers.postgresEndpoint(database),
                TestServers.redis(),
                Path.of("target", "wake-" + transport()));
    }

    @AfterEach
    void tearDown() {
        if (local != null) {
            local.stop();
        }
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void aWakeUpReachesTheOwnerInAnotherJvmWellWithinTheTierInterval() {
        nodes.launch("remote", WakeNodeMain.class, List.of(transport(), Integer.toString(SHARDS)));
        nodes.awaitReady();
        ShardCoordinator coordinator = coordinator();
        AtomicLong seq = new AtomicLong();
        TaskHandler.PerRow handler = (row, ctx) -> table.recordEffect(row, ctx, seq.incrementAndGet());
        local = new ScanEngine(
                        List.of(new ScanEngine.ScanTask(WakeNodeMain.task(SHARDS), handler)),
                        new JdbcTaskStore(dataSource),
                        coordinator,
                        WakeNodeMain.settings("local"),
                        ScanClock.system(),
                        ScanListener.NONE)
                .wakeThrough(channel(dataSource));
        local.start();
        await("the shards split between local and remote")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> local.task(TASK).ownedShards().size() == SHARDS / 2
                        && owners(coordinator).values().stream()
                                        .filter("remote"::equals)
                                        .count()
                                == SHARDS / 2);
        Map<Integer, String> balanced = owners(coordinator);
        int shard = balanced.entrySet().stream()
                .filter(e -> e.getValue().equals("remote"))
                .findFirst()
                .orElseThrow()
                .getKey();
        await("the remote's first pass of shard " + shard + " since it claimed it")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> WakeNodeMain.passedSinceClaim(nodes.logText("remote"), shard));
        assertThat(owners(coordinator)).as("the owners after the remote's pass").isEqualTo(balanced);
        long key = shard + 10L * SHARDS;
        table.jdbc()
                .update(
                        "INSERT INTO tb_order (order_id, user_id, phone, updated_at) VALUES (1, ?, '+1555', ?)",
                        key,
                        Timestamp.from(Instant.now()));

        // no poll picks the row up: tier 0 rests for a minute after the first pass, longer than the
        // await below, so only the wake-up can have the row handled within it
        assertThat(WakeNodeMain.TIER_INTERVAL).isGreaterThan(TestTime.scaled(Duration.ofSeconds(30)));
        assertThat(table.effects()).isZero();
        long wokeAt = System.nanoTime();
        new ScanTasks(local).wake(TASK, key);
        await("the owner handles the woken row")
                .pollInterval(Duration.ofMillis(20))
                .until(() -> table.effects() == 1);
        Duration pickup = Duration.ofNanos(System.nanoTime() - wokeAt);
        System.out.printf("%s: picked up %d ms after the wake-up%n", getClass().getSimpleName(), pickup.toMillis());

        assertThat(table.jdbc().queryForObject("SELECT node FROM effect", String.class))
                .as("the node that handled the row")
                .isEqualTo("remote");
        assertThat(pickup).as("pickup after the wake-up").isLessThan(PICKUP);
    }

    private static Map<Integer, String> owners(ShardCoordinator coordinator) {
        Map<Integer, String> owners = new TreeMap<>();
        for (LeaseInfo lease : coordinator.leases(TASK)) {
            if (lease.owner() != null) {
                owners.put(lease.shard(), lease.owner());
            }
        }
        return owners;
    }

    static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
