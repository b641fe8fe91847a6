package io.shardscan.core;

import java.util.List;
import java.util.Map;

/** One task as seen from this node, for endpoints, health and tests; steers it too. Thread-safe. */
public final class TaskView {

    private final TaskRunner runner;

    TaskView(TaskRunner runner) {
        this.runner = runner;
    }

    public TaskDefinition definition() {
        return runner.context().definition();
    }

    public TaskStats stats() {
        return runner.context().stats();
    }

    /** Shards this node holds a usable lease on, to their epochs, ascending. */
    public Map<Integer, Long> ownedShards() {
        return runner.ownedShards();
    }

    /** The live members as of the last heartbeat. */
    public List<Member> members() {
        return runner.members();
    }

    /** What a task is doing on this node. */
    public enum State {
        /** Claiming shards and running rounds. */
        RUNNING,
        /** Holding its shards but starting no rounds. */
        PAUSED,
        /** Not started, or stopped. */
        STOPPED
    }

    public State state() {
        if (!runner.isRunning()) {
            return State.STOPPED;
        }
        return runner.isPaused() ? State.PAUSED : State.RUNNING;
    }

    /** The kind of coordinator, e.g. {@code redis}, {@code jdbc} or {@code static}. */
    public String coordinatorKind() {
        return runner.coordinatorKind();
    }

    /** Every shard's lease as the coordinator showed it at the last lease tick; no call of its own. */
    public List<LeaseInfo> leases() {
        return runner.leases();
    }

    /** Counts the backlog now, with the store's queries; callers cache it. */
    public Backlog countBacklog() {
        TaskContext context = runner.context();
        return Backlog.of(
                context.definition(),
                context.store().countBacklog(context.definition()),
                context.clock().now());
    }

    /**
     * Puts every dead row back to pending with retry count 0 and scans at once.
     *
     * @return how many rows were requeued
     */
    public int requeueDead() {
        TaskContext context = runner.context();
        int requeued = context.store()
                .requeueDead(context.definition(), context.clock().now());
        runner.trigger();
        return requeued;
    }

    /** Whether the last heartbeat reached the coordinator. */
    public boolean coordinatorReachable() {
        return runner.coordinatorReachable();
    }

    public boolean isPaused() {
        return runner.isPaused();
    }

    public boolean isRunning() {
        return runner.isRunning();
    }

    /** Stops starting rounds; running ones finish. Leases are kept. */
    public void pause() {
        runner.pause(true);
    }

    public void resume() {
        runner.pause(false);
    }

    /** Scans every owned shard now, skipping the tiers' waits. */
    public void trigger() {
        runner.trigger();
    }
}
