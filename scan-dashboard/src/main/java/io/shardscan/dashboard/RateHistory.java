package io.shardscan.dashboard;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Rows per second of every task on every node, as a ring buffer of the last samples of each node's
 * processed counter; in memory only (Prometheus and the Grafana dashboard keep the longer history).
 * Thread-safe.
 */
final class RateHistory {

    private final int capacity;
    private final Map<String, Map<String, Series>> tasks = new HashMap<>();

    /** @param capacity the samples kept per task and node */
    RateHistory(int capacity) {
        if (capacity < 2) {
            throw new IllegalArgumentException(
                    "scan.dashboard.rate-samples must be at least 2 (was " + capacity + "), e.g. 60");
        }
        this.capacity = capacity;
    }

    /**
     * Records that {@code node} had processed {@code processed} rows of {@code task} in all at
     * {@code nanos} (a {@link System#nanoTime()}); a node that restarted (a smaller count) starts a
     * new series.
     */
    synchronized void record(String task, String node, long processed, long nanos) {
        Series series = tasks.computeIfAbsent(task, t -> new HashMap<>()).computeIfAbsent(node, n -> new Series());
        series.add(processed, nanos, capacity);
    }

    /** Forgets the nodes of {@code task} that are not in {@code live}. */
    synchronized void retain(String task, java.util.Collection<String> live) {
        Map<String, Series> nodes = tasks.get(task);
        if (nodes != null) {
            nodes.keySet().retainAll(live);
        }
    }

    /**
     * The rows/s between consecutive samples of each node of {@code task}, oldest first, by node id.
     *
     * @return empty when nothing was sampled yet
     */
    synchronized Map<String, List<Double>> rates(String task) {
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        new TreeMap<>(tasks.getOrDefault(task, Map.of())).forEach((node, series) -> rates.put(node, series.rates()));
        return rates;
    }

    private static final class Series {

        private final Deque<long[]> samples = new ArrayDeque<>();

        void add(long processed, long nanos, int capacity) {
            long[] last = samples.peekLast();
            if (last != null && processed < last[0]) {
                samples.clear();
            }
            samples.addLast(new long[] {processed, nanos});
            while (samples.size() > capacity) {
                samples.removeFirst();
            }
        }

        List<Double> rates() {
            List<Double> rates = new ArrayList<>(samples.size());
            long[] previous = null;
            for (long[] sample : samples) {
                if (previous != null && sample[1] > previous[1]) {
                    double seconds = (sample[1] - previous[1]) / 1e9;
                    rates.add(Math.round((sample[0] - previous[0]) / seconds * 10) / 10.0);
                }
                previous = sample;
            }
            return rates;
        }
    }
}
