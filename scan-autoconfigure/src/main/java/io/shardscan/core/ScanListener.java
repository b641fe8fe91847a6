package io.shardscan.core;

import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Tier;
import java.time.Duration;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

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

    /**
     * A round of {@code tier} on {@code shard} starts on the calling thread. The engine stops the
     * returned timing once when the round ends, on the same thread unless the round waited for
     * workers of {@code scan.max-workers} (it waits without a thread, and ends on the one it resumed
     * on), with its outcome:
     * {@code handled} (rows were handled and written back), {@code empty} (nothing was due),
     * {@code lost} (the shard was lost before the write-back), {@code failed} (the store failed) or,
     * with {@code scan.max-workers}, {@code cancelled} (it gave up waiting for workers because its
     * task stopped or paused or its shard moved; its rows stay pending).
     *
     * @return what to stop when the round ends; by default {@link Timing#NONE}
     */
    default Timing roundStarted(String task, int shard, Tier tier) {
        return Timing.NONE;
    }

    /**
     * A handler call on one row (a batch handler: one lane's rows) of {@code tier} starts on the
     * calling thread. The engine stops the returned timing once, on the same thread, when the call
     * returns, with what the write-back records for its (first) row, as {@link Outcome.Kind#tag()},
     * or {@code timed-out} when the call ran past the handler timeout and was taken over, or
     * {@code lost} when its transaction was rolled back because the shard was lost.
     *
     * @return what to stop when the call returns; by default {@link Timing#NONE}
     */
    default Timing handlerStarted(String task, Tier tier) {
        return Timing.NONE;
    }

    /**
     * {@link #handlerStarted(String, Tier)} with the shard whose round the call belongs to: a listener
     * that keeps the round's context (a trace's span) makes it current for the call. The engine calls
     * this one; by default it calls {@link #handlerStarted(String, Tier)}.
     */
    default Timing handlerStarted(String task, int shard, Tier tier) {
        return handlerStarted(task, tier);
    }

    /** Something a listener times, stopped once by the engine. */
    @FunctionalInterface
    interface Timing {

        /** A timing that records nothing. */
        Timing NONE = outcome -> {};

        /** Ends the timing with its outcome. */
        void stop(String outcome);

        /**
         * Ends the timing with its outcome and the exception that ended it: the handler's (a call) or the
         * round's ({@code failed}), else {@code null}. The engine calls this one; by default it calls
         * {@link #stop(String)}.
         */
        default void stop(String outcome, @Nullable Throwable error) {
            stop(outcome);
        }

        /** A timing that {@code end} ends with its outcome and its error ({@code null} when none). */
        static Timing of(BiConsumer<String, @Nullable Throwable> end) {
            return new Timing() {
                @Override
                public void stop(String outcome) {
                    end.accept(outcome, null);
                }

                @Override
                public void stop(String outcome, @Nullable Throwable error) {
                    end.accept(outcome, error);
                }
            };
        }
    }

    /** A round's latch did not open within the task's round timeout. */
    default void latchTimedOut(String task, int shard) {}

    /**
     * This node claimed {@code shard} and holds it from now under fence {@code epoch}: its rounds may
     * start. Called on the task's control thread, so keep it short.
     */
    default void shardClaimed(String task, int shard, long epoch) {}

    /** This node lost a lease it held, through a failed renewal, an expired deadline or a newer fence. */
    default void leaseLost(String task, int shard) {}

    /**
     * Level 1: {@code endpoint} failed {@code level1.after} tries in a row for an endpoint-down
     * reason and is skipped on this node for the rest of the pass.
     */
    default void endpointTripped(String task, String endpoint, String reason) {}

    /** Level 2: {@code endpoint} is banned on every node (or a failed probe renewed its ban). */
    default void endpointBanned(String task, String endpoint, String reason) {}

    /** The ban of {@code endpoint} was lifted, by a probe row that went through or by an operator. */
    default void endpointLifted(String task, String endpoint) {}

    /** An archive batch of {@code shard} moved or deleted {@code rows} finished rows (possibly 0) in {@code took}. */
    default void archived(String task, int shard, int rows, Duration took) {}

    /**
     * With {@code scan.max-workers}: a round of {@code task} got workers of the node's budget after
     * waiting {@code waited} in line; {@code aged} when it went ahead of every priority because its
     * oldest row had been due longer than the task's {@code max-wait}.
     */
    default void budgetWaited(String task, Duration waited, boolean aged) {}

    /** A run of the task ended on this node's word: nothing was left; {@code run} is done, with its counts. */
    default void runEnded(String task, TaskRun run) {}
}
