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
