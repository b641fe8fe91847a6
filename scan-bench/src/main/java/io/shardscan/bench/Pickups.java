package io.shardscan.bench;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When each row's insert committed and when its handler first started, both on this JVM's monotonic
 * clock, and the pickup latencies between them. Thread-safe.
 */
final class Pickups {

    private final Map<Long, Long> committed = new ConcurrentHashMap<>();
    private final Map<Long, Long> started = new ConcurrentHashMap<>();

    void committed(long id) {
        committed.put(id, System.nanoTime());
    }

    void started(long id) {
        started.putIfAbsent(id, System.nanoTime());
    }

    int startedCount() {
        return started.size();
    }

    /** The pickups of every row both committed and started, in milliseconds, ascending. */
    Latencies latencies() {
        double[] millis = committed.entrySet().stream()
                .filter(e -> started.containsKey(e.getKey()))
                // the handler may start before the commit's reply reached the inserter: that is no wait
                .mapToDouble(e -> Math.max(0, started.get(e.getKey()) - e.getValue()) / 1e6)
                .sorted()
                .toArray();
        return new Latencies(millis);
    }

    /** Sorted pickups in milliseconds. */
    record Latencies(double[] millis) {

        double percentile(double p) {
            if (millis.length == 0) {
                return Double.NaN;
            }
            int rank = (int) Math.ceil(p / 100 * millis.length);
            return millis[Math.max(0, Math.min(millis.length, rank) - 1)];
        }

        double max() {
            return millis.length == 0 ? Double.NaN : millis[millis.length - 1];
        }

        int count() {
            return millis.length;
        }

        @Override
        public String toString() {
            return Arrays.toString(millis);
        }
    }
}
