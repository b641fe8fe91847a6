package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.Lease;
import io.shardscan.core.LeaseInfo;
import io.shardscan.core.Member;
import io.shardscan.core.ShardCoordinator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link ShardCoordinator} must do; one small subclass per backend. */
public abstract class ShardCoordinatorContractTests {

    static final Duration TTL = Duration.ofSeconds(5);
    protected ShardCoordinator coordinator;
    String task;

    protected abstract ShardCoordinator createCoordinator();

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
        await().atMost(Duration.ofSeconds(5))
                .until(() -> coordinator.tryAcquire(task, 5, "b", TTL).isPresent());
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
    void listsLiveMembersSortedAndDropsSilentOnes() {
        coordinator.heartbeat(task, "node-b", TTL);
        coordinator.heartbeat(task, "node-c", TTL);
        assertThat(coordinator.heartbeat(task, "node-a", TTL))
                .extracting(Member::node)
                .containsExactly("node-a", "node-b", "node-c");
        coordinator.leave(task, "node-c");
        Duration short_ = Duration.ofMillis(400);
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(coordinator.heartbeat(task, "node-a", short_))
                        .extracting(Member::node)
                        .containsExactly("node-a"));
    }

    @Test
    void eightThreadsNeverHoldOneShardAtOnce() throws Exception {
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger grants = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            String node = "n" + t;
            futures.add(pool.submit(() -> {
                for (int i = 0; i < 40; i++) {
                    Optional<Lease> lease = coordinator.tryAcquire(task, 0, node, TTL);
                    if (lease.isPresent()) {
                        grants.incrementAndGet();
                        if (holders.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        holders.decrementAndGet();
                        coordinator.release(task, 0, node, lease.get().epoch());
                    }
                }
            }));
        }
        for (Future<?> future : futures) {
            future.get();
        }
        pool.shutdown();
        assertThat(grants.get()).isPositive();
        assertThat(overlaps.get()).isZero();
        assertThat(coordinator.leases(task).get(0).epoch()).isGreaterThanOrEqualTo(grants.get());
    }
}
