package io.shardscan.core;

import java.time.Duration;
import java.util.List;

/** Hands every event to several listeners in order; {@link #around} nests them, the first outermost. */
public final class CompositeScanListener implements ScanListener {

    private final List<ScanListener> listeners;

    public CompositeScanListener(List<ScanListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    /** One listener for all of {@code listeners}: {@link ScanListener#NONE} for none, the listener itself for one. */
    public static ScanListener of(List<ScanListener> listeners) {
        return switch (listeners.size()) {
            case 0 -> NONE;
            case 1 -> listeners.get(0);
            default -> new CompositeScanListener(listeners);
        };
    }

    @Override
    public Runnable around(String task, int shard, long epoch, Runnable work) {
        Runnable wrapped = work;
        for (int i = listeners.size() - 1; i >= 0; i--) {
            wrapped = listeners.get(i).around(task, shard, epoch, wrapped);
        }
        return wrapped;
    }

    @Override
    public void rowHandled(String task, Tier tier, Outcome.Kind outcome, Duration took) {
        listeners.forEach(l -> l.rowHandled(task, tier, outcome, took));
    }

    @Override
    public void roundCompleted(String task, int shard, int rows, Duration took) {
        listeners.forEach(l -> l.roundCompleted(task, shard, rows, took));
    }

    @Override
    public void latchTimedOut(String task, int shard) {
        listeners.forEach(l -> l.latchTimedOut(task, shard));
    }

    @Override
    public void leaseLost(String task, int shard) {
        listeners.forEach(l -> l.leaseLost(task, shard));
    }
}
