package io.shardscan.core;

import java.time.Duration;

/**
 * Receives what the engine does, for metrics and logs. Called on engine threads, so
 * implementations must be thread-safe and quick; every method does nothing by default.
 */
public interface ScanListener {

    /**
     * Wraps work the engine runs for one shard under one lease (a round, or a lane of it) on the
     * thread that runs it, e.g. to put the task, shard and epoch in a logging context.
     *
     * @return the work to run instead; by default {@code work} itself
     */
    default Runnable around(String task, int shard, long epoch, Runnable work) {
        return work;
    }

    /** A listener that ignores everything. */
    ScanListener NONE = new ScanListener() {};

    /**
     * One row's handler finished after {@code took}; {@code outcome} is what its write-back records
     * (a failure past the last tier is {@link Outcome.Kind#DEAD}).
     */
    default void rowHandled(String task, Tier tier, Outcome.Kind outcome, Duration took) {}

    /** A round of {@code rows} rows finished after {@code took}. */
    default void roundCompleted(String task, int shard, int rows, Duration took) {}

    /** A round's latch did not open within the task's round timeout. */
    default void latchTimedOut(String task, int shard) {}

    /** This node lost a lease it held, through a failed renewal, an expired deadline or a newer fence. */
    default void leaseLost(String task, int shard) {}
}
