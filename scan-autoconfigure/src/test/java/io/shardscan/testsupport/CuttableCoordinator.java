package io.shardscan.testsupport;

import io.shardscan.core.Lease;
import io.shardscan.core.LeaseInfo;
import io.shardscan.core.Member;
import io.shardscan.core.NodeCounters;
import io.shardscan.core.ShardCoordinator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A real coordinator whose node can be cut off from it, as in a network partition: every call then fails. */
public final class CuttableCoordinator implements ShardCoordinator {

    private final ShardCoordinator delegate;
    private volatile boolean cut;
    private volatile CountDownLatch renewalsHeldUntil;
    private final AtomicInteger renewalsWaiting = new AtomicInteger();
    private volatile Error kindFailure;

    public CuttableCoordinator(ShardCoordinator delegate) {
        this.delegate = delegate;
    }

    public void cut() {
        cut = true;
    }

    public void heal() {
        cut = false;
    }

    /** From now on every renewal waits until {@code open} opens (at most 30 s), then goes through. */
    public void holdRenewalsUntil(CountDownLatch open) {
        renewalsHeldUntil = open;
    }

    /** How many renewals wait on the latch given to {@link #holdRenewalsUntil} right now. */
    public int renewalsWaiting() {
        return renewalsWaiting.get();
    }

    private ShardCoordinator reach() {
        if (cut) {
            throw new IllegalStateException("coordinator unreachable (cut by the test)");
        }
        return delegate;
    }

    /** From now on {@link #kind()} throws {@code failure}, as a class gone from a replaced jar would. */
    public void failKindWith(Error failure) {
        kindFailure = failure;
    }

    @Override
    public String kind() {
        Error failure = kindFailure;
        if (failure != null) {
            throw failure;
        }
        return delegate.kind();
    }

    @Override
    public List<Member> heartbeat(String task, String node, Duration timeout) {
        return reach().heartbeat(task, node, timeout);
    }

    @Override
    public List<Member> heartbeat(String task, String node, Duration timeout, NodeCounters counters) {
        return reach().heartbeat(task, node, timeout, counters);
    }

    @Override
    public Optional<Lease> tryAcquire(String task, int shard, String node, Duration ttl) {
        return reach().tryAcquire(task, shard, node, ttl);
    }

    @Override
    public List<Integer> renew(String task, String node, Map<Integer, Long> leases, Duration ttl) {
        CountDownLatch held = renewalsHeldUntil;
        if (held != null) {
            renewalsWaiting.incrementAndGet();
            try {
                held.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                renewalsWaiting.decrementAndGet();
            }
        }
        return reach().renew(task, node, leases, ttl);
    }

    @Override
    public void release(String task, int shard, String node, long epoch) {
        reach().release(task, shard, node, epoch);
    }

    @Override
    public void leave(String task, String node) {
        reach().leave(task, node);
    }

    @Override
    public List<LeaseInfo> leases(String task) {
        return reach().leases(task);
    }
}
