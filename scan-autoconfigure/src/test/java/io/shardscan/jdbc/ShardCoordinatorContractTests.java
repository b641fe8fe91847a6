package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.Lease;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCoordinator;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link ShardCoordinator} must do; one small subclass per backend. */
public abstract class ShardCoordinatorContractTests {

    static final Duration TTL = Duration.ofSeconds(5);
    // long enough that no lease expires inside a critical section, even on a loaded machine
    static final Duration FUZZ_TTL = Duration.ofSeconds(10);
    static final int FUZZ_NODES = 8;
    static final int FUZZ_GRANTS = 5;
    static final int FUZZ_MAX_ATTEMPTS = 10_000;
    protected ShardCoordinator coordinator;
    String task;

    protected abstract ShardCoordinator createCoordinator();

    /** Returns a counter at 0 named after the test's task, in the same store as the coordinator's. */
    protected abstract Counter createCounter(String name);

    /** Overwrites what {@code node} last published with {@code encoded}, as a node of another version wrote it. */
    protected abstract void storeCounters(String task, String node, String encoded);

    @BeforeEach
    void setUp() {
        coordinator = createCoordinator();
        task = "t" + System.nanoTime();
    }

    @Test
    void grantsAFreeShardToOneNodeOnly() {
        Optional<Lease> a = coordinator.tryAcquire(task, 3, "a", TTL);
        assertThat(a).isPresent();
        assertThat(coordinator.tryAcquire(task, 3, "b", TTL)).isEmpty();
        assertThat(coordinator.leases(task)).singleElement().satisfies(l -> {
            assertThat(l.owner()).isEqualTo("a");
            assertThat(l.epoch()).isEqualTo(a.get().epoch());
            assertThat(l.expiresAt()).isNotNull();
        });
    }

    @Test
    void everyGrantTakesAGreaterEpoch() {
        long first = coordinator.tryAcquire(task, 0, "a", TTL).orElseThrow().epoch();
        coordinator.release(task, 0, "a", first);
        long second = coordinator.tryAcquire(task, 0, "b", TTL).orElseThrow().epoch();
        assertThat(second).isGreaterThan(first);
    }

    @Test
    void renewsOnlyLeasesHeldWithTheirEpoch() {
        long e1 = coordinator.tryAcquire(task, 1, "a", TTL).orElseThrow().epoch();
        long e2 = coordinator.tryAcquire(task, 2, "a", TTL).orElseThrow().epoch();
        coordinator.tryAcquire(task, 4, "b", TTL);
        List<Integer> renewed = coordinator.renew(task, "a", Map.of(1, e1, 2, e2 + 100, 4, 1L), TTL);
        assertThat(renewed).containsExactly(1);
    }

    @Test
    void expiredLeaseGoesToAnotherNodeAndTheOldOwnerCannotRenew() {
        Duration shortTtl = Duration.ofMillis(300);
        long old = coordinator.tryAcquire(task, 5, "a", shortTtl).orElseThrow().epoch();
        await().until(() -> coordinator.tryAcquire(task, 5, "b", TTL).isPresent());
        assertThat(coordinator.renew(task, "a", Map.of(5, old), TTL)).isEmpty();
        assertThat(coordinator.leases(task))
                .singleElement()
                .extracting(LeaseInfo::owner)
                .isEqualTo("b");
    }

    @Test
    void releaseFreesTheShardOnlyForItsHolderAndEpoch() {
        long epoch = coordinator.tryAcquire(task, 6, "a", TTL).orElseThrow().epoch();
        coordinator.release(task, 6, "b", epoch);
        coordinator.release(task, 6, "a", epoch + 1);
        assertThat(coordinator.tryAcquire(task, 6, "b", TTL)).isEmpty();
        coordinator.release(task, 6, "a", epoch);
        assertThat(coordinator.tryAcquire(task, 6, "b", TTL)).isPresent();
    }

    @Test
    void everyMemberReadsTheCountersTheOthersPublishedWithTheirLastHeartbeat() {
        coordinator.heartbeat(task, "node-b", TTL, new NodeCounters(10, 2, 1, 3));
        coordinator.heartbeat(task, "node-b", TTL, new NodeCounters(25, 4, 1, 0));
        List<Member> members = coordinator.heartbeat(task, "node-a", TTL, new NodeCounters(7, 0, 0, 1));
        assertThat(members)
                .extracting(Member::node, Member::counters)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("node-a", new NodeCounters(7, 0, 0, 1)),
                        org.assertj.core.groups.Tuple.tuple("node-b", new NodeCounters(25, 4, 1, 0)));
        assertThat(coordinator.heartbeat(task, "node-b", TTL))
                .as("a heartbeat without counters publishes none")
                .filteredOn(m -> m.node().equals("node-b"))
                .extracting(Member::counters)
                .containsExactly((NodeCounters) null);
    }

    @Test
    void theShardCountAndWeightRideWithTheCountersAndAnOlderNodesFieldsReadAsUnknown() {
        NodeCounters widest = new NodeCounters(
                Long.MIN_VALUE,
                Long.MIN_VALUE,
                Long.MIN_VALUE,
                Long.MIN_VALUE,
                Integer.MAX_VALUE,
                NodeCounters.MAX_WEIGHT,
                true);
        assertThat(widest.encode()).hasSize(NodeCounters.MAX_ENCODED_LENGTH);
        coordinator.heartbeat(task, "node-b", TTL, widest);
        coordinator.heartbeat(task, "node-c", TTL, new NodeCounters(1, 0, 0, 0, 8));
        storeCounters(task, "node-c", "5,1,0,2");
        coordinator.heartbeat(task, "node-d", TTL, new NodeCounters(1, 0, 0, 0, 8));
        storeCounters(task, "node-d", "6,0,0,0,8");

        List<Member> members = coordinator
                .tick(task, "node-a", TTL, new NodeCounters(3, 0, 0, 0, 16, 3), Map.of(), TTL)
                .members();

        assertThat(members)
                .extracting(Member::node, Member::counters)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("node-a", new NodeCounters(3, 0, 0, 0, 16, 3)),
                        org.assertj.core.groups.Tuple.tuple("node-b", widest),
                        org.assertj.core.groups.Tuple.tuple(
                                "node-c", new NodeCounters(5, 1, 0, 2, NodeCounters.UNKNOWN_SHARDS)),
                        org.assertj.core.groups.Tuple.tuple("node-d", new NodeCounters(6, 0, 0, 0, 8, 1)));
        assertThat(members.get(2).counters().knowsShards()).isFalse();
        assertThat(members.get(0).counters().shards()).isEqualTo(16);
        assertThat(members.get(0).counters().weight()).isEqualTo(3);
        assertThat(members.get(3).counters().weight())
                .as("a node of a version before the weight published five fields: weight 1")
                .isEqualTo(1);
    }

    @Test
    void listsLiveMembersSortedAndDropsSilentOnes() {
        coordinator.heartbeat(task, "node-b", TTL);
        coordinator.heartbeat(task, "node-c", TTL);
        assertThat(coordinator.heartbeat(task, "node-a", TTL))
                .extracting(Member::node)
                .containsExactly("node-a", "node-b", "node-c");
        coordinator.leave(task, "node-c");
        Duration short_ = Duration.ofMillis(400);
        await().pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(coordinator.heartbeat(task, "node-a", short_))
                        .extracting(Member::node)
                        .containsExactly("node-a"));
    }

    @Test
    void aTickHeartbeatsRenewsTheLeasesHeldWithTheirEpochAndReadsWhoHoldsWhat() {
        coordinator.heartbeat(task, "node-a", TTL);
        coordinator.heartbeat(task, "node-b", TTL, new NodeCounters(3, 0, 0, 0));
        long e1 = coordinator.tryAcquire(task, 1, "node-a", TTL).orElseThrow().epoch();
        long e2 = coordinator.tryAcquire(task, 2, "node-a", TTL).orElseThrow().epoch();
        long e3 = coordinator.tryAcquire(task, 3, "node-b", TTL).orElseThrow().epoch();
        Instant before = expiry(coordinator.leases(task), 1);
        Duration longer = TTL.multipliedBy(4);

        ShardCoordinator.Tick tick = coordinator.tick(
                task, "node-a", TTL, new NodeCounters(9, 1, 0, 0), Map.of(1, e1, 2, e2 + 100, 3, e3), longer);

        assertThat(tick.members())
                .extracting(Member::node, Member::counters)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("node-a", new NodeCounters(9, 1, 0, 0)),
                        org.assertj.core.groups.Tuple.tuple("node-b", new NodeCounters(3, 0, 0, 0)));
        assertThat(tick.members())
                .as("heartbeats at the instant they are, whatever the JVM's and the database's zones")
                .allSatisfy(member -> assertThat(member.lastHeartbeat())
                        .isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60)));
        assertThat(tick.renewed()).as("only the lease held with its epoch").containsExactly(1);
        assertThat(tick.leases())
                .extracting(LeaseInfo::shard, LeaseInfo::owner, LeaseInfo::epoch)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, "node-a", e1),
                        org.assertj.core.groups.Tuple.tuple(2, "node-a", e2),
                        org.assertj.core.groups.Tuple.tuple(3, "node-b", e3));
        assertThat(expiry(tick.leases(), 1))
                .as("the renewed lease shows its new expiry")
                .isAfter(before.plus(TTL));
        assertThat(expiry(coordinator.leases(task), 1))
                .isEqualTo(expiry(tick.leases(), 1))
                .isBetween(
                        Instant.now().plus(longer).minusSeconds(60),
                        Instant.now().plus(longer).plusSeconds(60));
        assertThat(expiry(coordinator.leases(task), 2)).isBefore(expiry(tick.leases(), 1));
        assertThat(coordinator.heartbeat(task, "node-b", TTL))
                .as("the tick published node-a's counters")
                .filteredOn(m -> m.node().equals("node-a"))
                .extracting(Member::counters)
                .containsExactly(new NodeCounters(9, 1, 0, 0));
    }

    @Test
    void aFirstTickJoinsTheMembersAndASilentMemberIsLeftOut() {
        coordinator.heartbeat(task, "node-b", TTL);
        ShardCoordinator.Tick first =
                coordinator.tick(task, "node-a", TTL, new NodeCounters(0, 0, 0, 0), Map.of(), TTL);
        assertThat(first.members()).extracting(Member::node).containsExactly("node-a", "node-b");
        assertThat(first.renewed()).isEmpty();
        assertThat(first.leases()).isEmpty();
        Duration short_ = Duration.ofMillis(400);
        await().pollInterval(Duration.ofMillis(100)).untilAsserted(() -> assertThat(coordinator
                        .tick(task, "node-a", short_, new NodeCounters(0, 0, 0, 0), Map.of(), TTL)
                        .members())
                .extracting(Member::node)
                .containsExactly("node-a"));
    }

    /**
     * The node's renewals with the ticks of its tasks: every lease held with its epoch is renewed, as
     * {@link ShardCoordinator#renewAll} renews it, and each tick answered (a backend may answer none)
     * heartbeats and reads what the task's own tick reads; a task the node is no member of is left out,
     * for its own tick to join.
     */
    @Test
    void theRenewalsRenewEveryTasksLeasesAndAnswerTheirTicksAsTheirOwnTicksRead() {
        String other = task + "-b";
        String stranger = task + "-c";
        coordinator.heartbeat(task, "node-a", TTL);
        coordinator.heartbeat(task, "node-b", TTL, new NodeCounters(3, 0, 0, 0));
        coordinator.heartbeat(other, "node-a", TTL);
        long e1 = coordinator.tryAcquire(task, 1, "node-a", TTL).orElseThrow().epoch();
        long e2 = coordinator.tryAcquire(task, 2, "node-b", TTL).orElseThrow().epoch();
        long e3 = coordinator.tryAcquire(other, 0, "node-a", TTL).orElseThrow().epoch();
        Duration longer = TTL.multipliedBy(4);

        ShardCoordinator.NodeTick answer = coordinator.renewAllAndTick(
                "node-a",
                Map.of(task, Map.of(1, e1), other, Map.of(0, e3 + 100)),
                longer,
                TTL,
                Map.of(
                        task, new NodeCounters(9, 1, 0, 0),
                        other, new NodeCounters(1, 0, 0, 0),
                        stranger, new NodeCounters(0, 0, 0, 0)));

        assertThat(answer.renewed()).containsEntry(task, List.of(1));
        assertThat(answer.renewed().getOrDefault(other, List.of()))
                .as("a lease asked with another epoch")
                .isEmpty();
        assertThat(expiry(coordinator.leases(task), 1))
                .isBetween(
                        Instant.now().plus(longer).minusSeconds(60),
                        Instant.now().plus(longer).plusSeconds(60));
        assertThat(answer.ticks()).doesNotContainKey(stranger);
        ShardCoordinator.Tick tick = answer.ticks().get(task);
        if (tick != null) {
            assertThat(tick.members())
                    .extracting(Member::node, Member::counters)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("node-a", new NodeCounters(9, 1, 0, 0)),
                            org.assertj.core.groups.Tuple.tuple("node-b", new NodeCounters(3, 0, 0, 0)));
            assertThat(tick.leases())
                    .extracting(LeaseInfo::shard, LeaseInfo::owner, LeaseInfo::epoch)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(1, "node-a", e1),
                            org.assertj.core.groups.Tuple.tuple(2, "node-b", e2));
            assertThat(expiry(tick.leases(), 1))
                    .as("the renewed lease shows its new expiry")
                    .isEqualTo(expiry(coordinator.leases(task), 1));
        }
        answer.ticks().forEach((name, answered) -> {
            ShardCoordinator.Tick own =
                    coordinator.tick(name, "node-a", TTL, new NodeCounters(9, 1, 0, 0), Map.of(), TTL);
            assertThat(answered.members())
                    .extracting(Member::node)
                    .isEqualTo(own.members().stream().map(Member::node).toList());
            assertThat(answered.leases())
                    .extracting(LeaseInfo::shard, LeaseInfo::owner, LeaseInfo::epoch)
                    .isEqualTo(own.leases().stream()
                            .map(l -> org.assertj.core.groups.Tuple.tuple(l.shard(), l.owner(), l.epoch()))
                            .toList());
        });
        assertThat(coordinator.heartbeat(task, "node-b", TTL))
                .as("an answered tick published node-a's counters")
                .filteredOn(m -> m.node().equals("node-a") && tick != null)
                .extracting(Member::counters)
                .allSatisfy(counters -> assertThat(counters).isEqualTo(new NodeCounters(9, 1, 0, 0)));
    }

    private static Instant expiry(List<LeaseInfo> leases, int shard) {
        return leases.stream()
                .filter(l -> l.shard() == shard)
                .findFirst()
                .map(LeaseInfo::expiresAt)
                .orElseThrow();
    }

    @Test
    void eightNodesBumpingACounterUnderTheLeaseNeverLoseAnUpdate() throws Exception {
        Counter counter = createCounter(task);
        List<Long> epochs = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(FUZZ_NODES);
        try {
            List<Future<?>> nodes = new ArrayList<>();
            for (int n = 0; n < FUZZ_NODES; n++) {
                String node = "n" + n;
                nodes.add(pool.submit(() -> {
                    // as ShedLock's FuzzTester, only a granted attempt counts; the cap keeps a
                    // broken coordinator from spinning forever
                    int held = 0;
                    for (int attempt = 0; held < FUZZ_GRANTS && attempt < FUZZ_MAX_ATTEMPTS; attempt++) {
                        Optional<Lease> lease = coordinator.tryAcquire(task, 0, node, FUZZ_TTL);
                        if (lease.isPresent()) {
                            long epoch = lease.get().epoch();
                            epochs.add(epoch);
                            long seen = counter.read();
                            // the I/O a holder does between its read and its write: a second holder
                            // in this window makes one of the two increments get lost
                            LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
                            counter.write(seen + 1);
                            coordinator.release(task, 0, node, epoch);
                            held++;
                        }
                    }
                }));
            }
            for (Future<?> node : nodes) {
                node.get(1, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(epochs).hasSize(FUZZ_NODES * FUZZ_GRANTS);
        assertThat(counter.read()).isEqualTo(epochs.size());
        assertThat(epochs).doesNotHaveDuplicates().isSorted();
    }

    /**
     * A number kept in the backend's own store, read and written in separate round trips so that
     * two holders at once lose an update.
     */
    public interface Counter {

        /** Returns the stored value, 0 before the first write. */
        long read();

        /** Stores the value. */
        void write(long value);
    }
}
