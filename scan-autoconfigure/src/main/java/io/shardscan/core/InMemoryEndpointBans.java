package io.shardscan.core;

import io.shardscan.core.spi.EndpointBan;
import io.shardscan.core.spi.EndpointBans;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link EndpointBans} in this JVM, on its {@link ScanClock}: what a single node, or engines of one
 * JVM sharing one instance, use when no shared store is configured. Thread-safe.
 */
public final class InMemoryEndpointBans implements EndpointBans {

    private final ScanClock clock;
    private final Map<String, Deque<Instant>> trips = new TreeMap<>();
    private final Map<String, EndpointBan> bans = new TreeMap<>();

    public InMemoryEndpointBans(ScanClock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized int trip(String task, String endpoint, Duration window) {
        Instant now = clock.now();
        Deque<Instant> times = trips.computeIfAbsent(task + '\n' + endpoint, k -> new ArrayDeque<>());
        times.addLast(now);
        while (!times.isEmpty() && times.peekFirst().isBefore(now.minus(window))) {
            times.removeFirst();
        }
        return times.size();
    }

    @Override
    public synchronized boolean ban(String task, String endpoint, Duration ban, String reason) {
        Instant now = clock.now();
        String key = task + '\n' + endpoint;
        EndpointBan old = bans.get(key);
        bans.put(key, new EndpointBan(endpoint, old == null ? now : old.since(), now.plus(ban), reason, true));
        trips.remove(key);
        return old == null || !now.isBefore(old.until());
    }

    @Override
    public synchronized List<EndpointBan> bans(String task) {
        Instant now = clock.now();
        return bans.entrySet().stream()
                .filter(e -> e.getKey().startsWith(task + '\n'))
                .map(Map.Entry::getValue)
                .map(b -> new EndpointBan(b.endpoint(), b.since(), b.until(), b.lastError(), now.isBefore(b.until())))
                .toList();
    }

    @Override
    public synchronized boolean claimProbe(String task, String endpoint, Duration hold) {
        Instant now = clock.now();
        EndpointBan ban = bans.get(task + '\n' + endpoint);
        if (ban == null || now.isBefore(ban.until())) {
            return false;
        }
        bans.put(task + '\n' + endpoint, new EndpointBan(endpoint, ban.since(), now.plus(hold), ban.lastError(), true));
        return true;
    }

    @Override
    public synchronized boolean lift(String task, String endpoint) {
        trips.remove(task + '\n' + endpoint);
        return bans.remove(task + '\n' + endpoint) != null;
    }
}
