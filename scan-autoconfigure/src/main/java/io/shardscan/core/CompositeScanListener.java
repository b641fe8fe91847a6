package io.shardscan.core;

import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Tier;
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
    public Timing roundStarted(String task, int shard, Tier tier) {
        return all(
                listeners.stream().map(l -> l.roundStarted(task, shard, tier)).toList());
    }

    @Override
    public Timing handlerStarted(String task, Tier tier) {
        return all(listeners.stream().map(l -> l.handlerStarted(task, tier)).toList());
    }

    @Override
    public Timing handlerStarted(String task, int shard, Tier tier) {
        return all(
                listeners.stream().map(l -> l.handlerStarted(task, shard, tier)).toList());
    }

    /** Stops the timings in reverse order, the first listener's last, as nested scopes end. */
    private static Timing all(List<Timing> timings) {
        return Timing.of((outcome, error) -> {
            for (int i = timings.size() - 1; i >= 0; i--) {
                timings.get(i).stop(outcome, error);
            }
        });
    }

    @Override
    public void latchTimedOut(String task, int shard) {
        listeners.forEach(l -> l.latchTimedOut(task, shard));
    }

    @Override
    public void shardClaimed(String task, int shard, long epoch) {
        listeners.forEach(l -> l.shardClaimed(task, shard, epoch));
    }

    @Override
    public void leaseLost(String task, int shard) {
        listeners.forEach(l -> l.leaseLost(task, shard));
    }

    @Override
    public void endpointTripped(String task, String endpoint, String reason) {
        listeners.forEach(l -> l.endpointTripped(task, endpoint, reason));
    }

    @Override
    public void endpointBanned(String task, String endpoint, String reason) {
        listeners.forEach(l -> l.endpointBanned(task, endpoint, reason));
    }

    @Override
    public void endpointLifted(String task, String endpoint) {
        listeners.forEach(l -> l.endpointLifted(task, endpoint));
    }

    @Override
    public void archived(String task, int shard, int rows, Duration took) {
        listeners.forEach(l -> l.archived(task, shard, rows, took));
    }

    @Override
    public void budgetWaited(String task, Duration waited, boolean aged) {
        listeners.forEach(l -> l.budgetWaited(task, waited, aged));
    }
}
