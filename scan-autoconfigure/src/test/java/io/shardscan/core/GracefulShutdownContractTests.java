package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.Lease;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCoordinator;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.LeaseTicks;
import io.shardscan.testsupport.OrderTable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two nodes with a 2 s lease TTL: one stops while a handler call of it runs for several TTLs. The
 * stop keeps that shard's lease until the call wrote back, so the other node neither runs the row
 * again nor takes the shard before the stop released it. One subclass per coordinator.
 */
public abstract class GracefulShutdownContractTests {

    static final int SHARDS = 4;

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog runnerLog = new CapturedLog(TaskRunner.class.getName());

    @RegisterExtension
    final CapturedLog laneLog = new CapturedLog(RunningLanes.class.getName());

    DataSource dataSource;
    OrderTable table;
    TaskDefinition task;
    String name;
    ShardCoordinator observer;
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch finish = new CountDownLatch(1);
    /** Until a hanging renewal of node-a returns, unless the stop interrupts it first. */
    final CountDownLatch renewalsOpen = new CountDownLatch(1);

    final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    /** What the two nodes did with leases, in the order they did it: "node-a releases 3", "node-b took 3". */
    final List<String> leaseEvents = new CopyOnWriteArrayList<>();

    ScanEngine a;
    ScanEngine b;
    Recording renewalsOfA;
    List<Integer> heldByA;
    int shard;

    final TaskHandler.PerRow slow = (row, ctx) -> {
        runs.computeIfAbsent(ctx.node(), n -> new AtomicInteger()).incrementAndGet();
        entered.countDown();
        finish.await(60, TimeUnit.SECONDS);
        return table.recordEffect(row, ctx, 0);
    };

    /** The database of the scanned table and the fence. */
    protected abstract DataSource dataSource();

    /** A coordinator of its own, as another node would have. */
    protected abstract ShardCoordinator coordinator();

    /** The task's name: one of its own per test where the coordinator keeps keys across tests. */
    protected abstract String taskName();

    @BeforeEach
    void createTheTable() {
        dataSource = dataSource();
        table = new OrderTable(dataSource).recreate(SHARDS, true).coordinationTables();
        name = taskName();
        task = TaskDefinition.builder(name)
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .build();
        observer = coordinator();
    }

    @AfterEach
    void endTheCallThenStop() {
        finish.countDown();
        renewalsOpen.countDown();
        engines.afterEach(null);
        closeCoordinators();
    }

    /** After the engines stopped: closes what the coordinators use, e.g. their connections. */
    protected void closeCoordinators() {}

    @Test
    void aCallThatOutlastsSeveralLeaseTtlsDuringTheStopRunsOnceAndItsShardMovesOnlyAfterItsRelease() {
        startTwoNodesWithACallRunningOnNodeA();

        Instant deadline = expiresAt(shard);
        CompletableFuture<Void> stop = CompletableFuture.runAsync(a::stop);

        // three lease TTLs on the coordinator's own clock: node-a renewed the lease past its deadline at the
        // stop (about a TTL later) plus two TTLs, so a TTL after that deadline or later; then node-b ticks
        // twice more, each tick free to take a lapsed lease (without renewals during the stop it took the
        // shard within about one TTL)
        Instant renewedPast = deadline.plus(Engines.FAST_TTL.multipliedBy(2));
        await().until(() -> leaseEvents.contains("node-b took " + shard)
                || !"node-a".equals(owner(shard))
                || expiresAt(shard).isAfter(renewedPast));
        LeaseTicks.awaitNext(2, b.task(name));
        assertThat(leaseEvents).doesNotContain("node-b took " + shard);
        assertThat(owner(shard)).isEqualTo("node-a");
        assertThat(b.task(name).ownedShards()).doesNotContainKey(shard);
        assertThat(runs).doesNotContainKey("node-b");
        assertThat(stop).isNotDone();
        finish.countDown();
        await().until(stop::isDone);

        // the call's write-back landed under node-a's fence, and nothing ran it again
        assertThat(table.count("status = 1")).isEqualTo(1);
        assertThat(table.effects()).isEqualTo(1);
        assertThat(runs).containsOnlyKeys("node-a");
        assertThat(runs.get("node-a")).hasValue(1);
        assertThat(laneLog.messages()).noneMatch(line -> line.contains("refused"));
        assertThat(runnerLog.messages())
                .contains("Task " + name + ": stopped; released shards " + heldByA + " and left the members");
        // node-b took the shard, and only after node-a released it
        await().until(() -> b.task(name).ownedShards().size() == SHARDS);
        assertThat(leaseEvents)
                .filteredOn(event -> event.endsWith(" " + shard))
                .containsExactly("node-a releases " + shard, "node-b took " + shard);
        assertThat(runs).containsOnlyKeys("node-a");
    }

    /**
     * Node-a's renewals during its stop fail as {@code failing} makes them: the shard of its running
     * call goes to node-b after about a TTL (node-a's write-back is then refused), and node-a's last
     * line names only the shards it still held when it released them, not that one.
     */
    void aLeaseLostDuringTheStopIsNotNamedAsReleased(Runnable failing) {
        startTwoNodesWithACallRunningOnNodeA();
        failing.run();

        CompletableFuture<Void> stop = CompletableFuture.runAsync(a::stop);

        await().until(() -> b.task(name).ownedShards().containsKey(shard));
        finish.countDown();
        await().until(stop::isDone);
        List<Integer> released = heldByA.stream().filter(s -> s != shard).toList();
        assertThat(runnerLog.messages())
                .contains("Task " + name + ": stopped; released shards " + released + " and left the members");
    }

    /** Starts node-a and node-b, two shards each, and a row on one of node-a's shards whose call waits for {@link #finish}. */
    void startTwoNodesWithACallRunningOnNodeA() {
        renewalsOfA = new Recording("node-a", coordinator());
        a = start(renewalsOfA);
        b = start(new Recording("node-b", coordinator()));
        await().untilAsserted(() -> {
            assertThat(a.task(name).ownedShards()).hasSize(SHARDS / 2);
            assertThat(b.task(name).ownedShards()).hasSize(SHARDS / 2);
        });
        heldByA = List.copyOf(a.task(name).ownedShards().keySet());
        shard = heldByA.get(0);
        // order SHARDS + shard belongs to user shard, so to that shard
        table.insert(SHARDS + shard, 1, SHARDS, Instant.now().minusSeconds(5));
        await().until(() -> entered.getCount() == 0);
        leaseEvents.clear();
    }

    ScanEngine start(Recording coordinator) {
        return engines.start(
                coordinator.node,
                dataSource,
                coordinator,
                new ScanEngine.ScanTask(task, slow),
                ScanClock.system(),
                ScanListener.NONE,
                Engines.FAST_TTL,
                Engines.FAST_RENEW);
    }

    /** When {@code shard}'s lease runs out as the coordinator shows it, on its clock; {@link Instant#MIN} when free. */
    Instant expiresAt(int shard) {
        for (LeaseInfo lease : observer.leases(name)) {
            if (lease.shard() == shard && lease.expiresAt() != null) {
                return lease.expiresAt();
            }
        }
        return Instant.MIN;
    }

    /** Who holds {@code shard}'s lease as the coordinator shows it; {@code null} when nobody does. */
    String owner(int shard) {
        for (LeaseInfo lease : observer.leases(name)) {
            if (lease.shard() == shard) {
                return lease.owner();
            }
        }
        return null;
    }

    /**
     * A real coordinator that records in {@link #leaseEvents} each lease its node took and each release
     * it began; its {@link #renew} (which only a stop calls: a lease tick renews in its own call) can
     * be made to refuse every lease, or to hang until interrupted.
     */
    final class Recording implements ShardCoordinator {

        final String node;
        private final ShardCoordinator delegate;
        volatile boolean refuse;
        volatile boolean hang;

        Recording(String node, ShardCoordinator delegate) {
            this.node = node;
            this.delegate = delegate;
        }

        @Override
        public List<Member> heartbeat(String task, String node, Duration timeout) {
            return delegate.heartbeat(task, node, timeout);
        }

        @Override
        public List<Member> heartbeat(String task, String node, Duration timeout, NodeCounters counters) {
            return delegate.heartbeat(task, node, timeout, counters);
        }

        @Override
        public Tick tick(
                String task,
                String node,
                Duration memberTimeout,
                NodeCounters counters,
                Map<Integer, Long> held,
                Duration ttl) {
            return delegate.tick(task, node, memberTimeout, counters, held, ttl);
        }

        @Override
        public Optional<Lease> tryAcquire(String task, int shard, String node, Duration ttl) {
            Optional<Lease> lease = delegate.tryAcquire(task, shard, node, ttl);
            lease.ifPresent(l -> leaseEvents.add(this.node + " took " + shard));
            return lease;
        }

        @Override
        public List<Integer> renew(String task, String node, Map<Integer, Long> leases, Duration ttl) {
            if (hang) {
                try {
                    renewalsOpen.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IllegalStateException("renewal hung (by the test)");
            }
            if (refuse) {
                return List.of();
            }
            return delegate.renew(task, node, leases, ttl);
        }

        @Override
        public void release(String task, int shard, String node, long epoch) {
            // before the call: a node that takes the shard once it is free then comes after
            leaseEvents.add(this.node + " releases " + shard);
            delegate.release(task, shard, node, epoch);
        }

        @Override
        public void leave(String task, String node) {
            delegate.leave(task, node);
        }

        @Override
        public List<LeaseInfo> leases(String task) {
            return delegate.leases(task);
        }

        @Override
        public String kind() {
            return delegate.kind();
        }
    }
}
