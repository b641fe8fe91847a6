package io.shardscan.core;

import io.shardscan.core.spi.Lease;
import io.shardscan.core.spi.LeaseInfo;
import io.shardscan.core.spi.Member;
import io.shardscan.core.spi.ShardCoordinator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Static sharding (seed 001): node {@code index} of {@code count} owns the shards with
 * {@code shard mod count == index}, set by hand, with no coordinator traffic. Epochs start from the
 * wall clock's milliseconds so a restarted node's epochs still exceed the fence its last run left.
 * Thread-safe.
 */
public final class StaticShardCoordinator implements ShardCoordinator {

    private final int index;
    private final int count;
    private final AtomicLong epochs;
    private final ScanClock clock;
    private final Map<String, Map<Integer, Long>> held = new ConcurrentHashMap<>();

    public StaticShardCoordinator(int index, int count, ScanClock clock) {
        if (count < 1 || index < 0 || index >= count) {
            throw new IllegalArgumentException("scan.node-index (" + index + ") must lie in 0.." + (count - 1)
                    + " for scan.node-count " + count + ": number the nodes from 0");
        }
        this.index = index;
        this.count = count;
        this.clock = clock;
        this.epochs = new AtomicLong(clock.now().toEpochMilli());
    }

    @Override
    public List<Member> heartbeat(String task, String node, Duration timeout) {
        return List.of(new Member(node, clock.now()));
    }

    @Override
    public Optional<Lease> tryAcquire(String task, int shard, String node, Duration ttl) {
        long epoch = epochs.incrementAndGet();
        held.computeIfAbsent(task, t -> new ConcurrentHashMap<>()).put(shard, epoch);
        return Optional.of(new Lease(shard, epoch));
    }

    @Override
    public List<Integer> renew(String task, String node, Map<Integer, Long> leases, Duration ttl) {
        return new ArrayList<>(leases.keySet());
    }

    @Override
    public void release(String task, int shard, String node, long epoch) {
        held.getOrDefault(task, Map.of()).remove(shard, epoch);
    }

    @Override
    public void leave(String task, String node) {
        held.remove(task);
    }

    @Override
    public List<LeaseInfo> leases(String task) {
        List<LeaseInfo> leases = new ArrayList<>();
        held.getOrDefault(task, Map.of())
                .forEach((shard, epoch) -> leases.add(new LeaseInfo(shard, null, epoch, null)));
        return leases;
    }

    @Override
    public String kind() {
        return "static";
    }

    @Override
    public List<Integer> assign(String node, List<Member> members, String[] current) {
        List<Integer> mine = new ArrayList<>();
        for (int shard = index; shard < current.length; shard += count) {
            mine.add(shard);
        }
        return mine;
    }
}
