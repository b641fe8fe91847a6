package io.shardscan.testsupport;

import io.shardscan.core.spi.Lease;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.NodeCounters;
import io.shardscan.core.spi.ShardCoordinator;
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
    private volatile Duration releasesFailAfter;
    private volatile CountDownLatch releasesHangUntil;
    private final AtomicInteger releases = new AtomicInteger();
    private final AtomicInteger releasesHanging = new AtomicInteger();
    private final CallHold ticks = new CallHold();
    private final AtomicInteger heartbeats = new AtomicInteger();
    private final AtomicInteger granted = new AtomicInteger();
    private final AtomicInteger acquireAttempts = new AtomicInteger();
    private final AtomicInteger mostReleasesHanging = new AtomicInteger();
    private final CallHold grants = new CallHold();
    private final List<Integer> releasedShards = new java.util.concurrent.CopyOnWriteArrayList<>();

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

    /**
     * From now on every release waits {@code delay}, then fails, as a call waiting for a connection
     * from a pool whose database is gone does after the pool's connection timeout.
     */
    public void failReleasesAfter(Duration delay) {
        releasesFailAfter = delay;
    }

    /** From now on every release waits until {@code open} opens (at most 60 s), then fails: a coordinator that hangs. */
    public void hangReleasesUntil(CountDownLatch open) {
        releasesHangUntil = open;
    }

    /**
     * From now on every lease tick waits in its heartbeat until {@code open} opens (at most 60 s),
     * then goes through: a coordinator call that hangs, and ignores interrupts, as a socket read does.
     */
    public void holdTicksUntil(CountDownLatch open) {
        ticks.holdUntil(open);
    }

    /** The most releases that waited on the latch given to {@link #hangReleasesUntil} at one time. */
    /**
     * From now on a lease the coordinator grants reaches the node only once {@code open} opens (or after
     * 60 s): the grant is made, its answer is late, and interrupts do not cut the wait.
     */
    public void holdGrantsUntil(CountDownLatch open) {
        grants.holdUntil(open);
    }

    /** How many granted leases wait on the latch given to {@link #holdGrantsUntil} right now. */
    public int grantsHeld() {
        return grants.held();
    }

    /** The shards whose leases were released through this coordinator, in order. */
    public List<Integer> releasedShards() {
        return List.copyOf(releasedShards);
    }

    public int mostReleasesHanging() {
        return mostReleasesHanging.get();
    }

    /** How many lease ticks wait on the latch given to {@link #holdTicksUntil} right now. */
    public int ticksHeld() {
        return ticks.held();
    }

    /** How many times {@link #release} was called so far, failed ones included. */
    public int releases() {
        return releases.get();
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
    public String location() {
        return delegate.location();
    }

    @Override
    public List<Member> heartbeat(String task, String node, Duration timeout) {
        return reach().heartbeat(task, node, timeout);
    }

    @Override
    public List<Member> heartbeat(String task, String node, Duration timeout, NodeCounters counters) {
        heartbeats.incrementAndGet();
        ticks.pass();
        return reach().heartbeat(task, node, timeout, counters);
    }

    @Override
    public Optional<Lease> tryAcquire(String task, int shard, String node, Duration ttl) {
        acquireAttempts.incrementAndGet();
        Optional<Lease> lease = reach().tryAcquire(task, shard, node, ttl);
        lease.ifPresent(l -> granted.incrementAndGet());
        if (lease.isPresent()) {
            grants.pass();
        }
        return lease;
    }

    /** How many heartbeats (one per lease tick) were sent so far. */
    public int heartbeats() {
        return heartbeats.get();
    }

    /** How many claims were tried so far, granted or not, on a cut coordinator too. */
    public int acquireAttempts() {
        return acquireAttempts.get();
    }

    /** How many leases were granted so far. */
    public int granted() {
        return granted.get();
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
        releases.incrementAndGet();
        Duration failAfter = releasesFailAfter;
        CountDownLatch hang = releasesHangUntil;
        if (failAfter != null || hang != null) {
            try {
                if (hang != null) {
                    mostReleasesHanging.accumulateAndGet(releasesHanging.incrementAndGet(), Math::max);
                    try {
                        hang.await(60, TimeUnit.SECONDS);
                    } finally {
                        releasesHanging.decrementAndGet();
                    }
                } else {
                    Thread.sleep(failAfter.toMillis()); // simulated: a cut-off coordinator fails after its timeout
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("release failed: the coordinator did not answer (failed by the test)");
        }
        reach().release(task, shard, node, epoch);
        releasedShards.add(shard);
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
