package io.shardscan.core;

import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.Tier;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * The lanes of one round while they run. The round waits on their latch, writing back what
 * finished at least every commit interval, taking over calls past the handler timeout and giving
 * up on every lane once the round timeout passed. Every write-back is fenced by the shard's epoch.
 *
 * <p>For a task with endpoints, a round does not wait for calls to slow endpoints: once the only
 * lanes left run a call to an endpoint known slow (or one running longer than {@code slow-call}),
 * the round ends without them. They become the shard's stragglers ({@link OwnedShard#detach}):
 * each runs its other rows after its call but calls no slow endpoint again, and their rows are not
 * started by the shard's next rounds until the round's thread, which waits for them as it waited
 * before ({@link #finishStragglers}), has written their outcomes back under the same epoch. So a 2 s call holds one worker, not its shard's next
 * page; a handover, a shutdown or a lost lease treats a shard with stragglers as one whose round
 * still runs.
 */
final class RunningLanes {

    private static final System.Logger log = ScanLogging.getLogger(RunningLanes.class);

    private final TaskContext task;
    private final OwnedShard shard;
    private final Outcomes outcomes;
    private final long started;
    private final LaneLatch latch;
    private final List<Lane> lanes;
    private List<List<Row>> stragglers = List.of();

    private RunningLanes(TaskContext task, OwnedShard shard, Outcomes outcomes, long started, int count) {
        this.task = task;
        this.shard = shard;
        this.outcomes = outcomes;
        this.started = started;
        this.latch = new LaneLatch(count);
        this.lanes = new ArrayList<>(count);
    }

    /** Starts a lane for each list of rows on the task's pool; {@code started} is when the round began. */
    static RunningLanes start(
            TaskContext task, OwnedShard shard, Tier tier, List<List<Row>> split, Outcomes outcomes, long started) {
        RunningLanes running = new RunningLanes(task, shard, outcomes, started, split.size());
        for (List<Row> rows : split) {
            Lane lane = new Lane(task, shard, tier, rows, outcomes, running.latch);
            running.lanes.add(lane);
            task.workers().execute(task.listener().around(task.name(), shard.shard, shard.epoch, lane));
        }
        return running;
    }

    /**
     * Waits until every lane ended, or until only stragglers are left: those are then detached from
     * the round, which writes back the rest and ends; the round's thread must then call
     * {@link #finishStragglers}.
     *
     * @return whether lanes were left running
     */
    boolean awaitOrDetach() {
        return await(task.endpoints() != null);
    }

    /**
     * After the round ended without them, on the round's thread: waits for the stragglers as for any
     * lane and writes their outcomes back; the caller then tells the shard with {@link #stragglers()}.
     */
    void finishStragglers() {
        try {
            await(false);
            flush();
        } catch (RuntimeException | Error e) {
            // an Error too: escaping, it would end the round's thread with no line of ours
            if (e instanceof RuntimeException) {
                task.stats().storeReached(!StoreFailure.unreachable(e));
            }
            log.log(
                    e instanceof Error ? Level.ERROR : Level.WARNING,
                    "Task " + task.name() + " shard " + shard.shard + ": write-back of the calls the round left"
                            + " running failed; their rows stay pending and are fetched again: "
                            + StoreFailure.describe(e));
        }
    }

    /** The rows of each lane detached from the round; empty when none was. */
    List<List<Row>> stragglers() {
        return stragglers;
    }

    private boolean await(boolean mayDetach) {
        TaskDefinition definition = task.definition();
        long commitEvery = definition.rounds().commitInterval().toNanos();
        long roundDeadline = started + definition.rounds().timeout().toNanos();
        long nextFlush = task.clock().nanos() + commitEvery;
        try {
            while (true) {
                long seen = latch.changes();
                if (latch.ended()) {
                    return false;
                }
                long now = task.clock().nanos();
                if (mayDetach && detachStragglers(now)) {
                    return true;
                }
                long until = Math.min(nextFlush, roundDeadline);
                for (Lane lane : lanes) {
                    until = Math.min(
                            until, lane.callDeadline(definition.rounds().handlerTimeout()));
                    long slow = lane.slowDeadline();
                    if (mayDetach && slow - now > 0) {
                        until = Math.min(until, slow);
                    }
                }
                latch.awaitChange(seen, Math.max(0, until - now));
                now = task.clock().nanos();
                for (Lane lane : lanes) {
                    lane.abandonIfOverdue(now, definition.rounds().handlerTimeout());
                }
                if (now - roundDeadline >= 0) {
                    giveUp();
                    return false;
                }
                if (now - nextFlush >= 0) {
                    flushQuietly();
                    nextFlush = task.clock().nanos() + commitEvery;
                }
            }
        } catch (InterruptedException e) {
            // shutdown gave up on this round: what finished is still written back (so the interrupt
            // is not kept, it would fail that write), the rows in handlers stay pending
            lanes.forEach(Lane::leave);
            return false;
        }
    }

    /** Detaches the lanes still running when each runs a slow call; returns whether it did. */
    private boolean detachStragglers(long now) {
        List<Lane> left = new ArrayList<>();
        for (Lane lane : lanes) {
            if (!lane.ended()) {
                if (!lane.straggling(now)) {
                    return false;
                }
                left.add(lane);
            }
        }
        if (left.isEmpty()) {
            return false;
        }
        List<List<Row>> rows = new ArrayList<>(left.size());
        for (Lane lane : left) {
            lane.detach();
            rows.add(lane.rows());
        }
        stragglers = rows;
        shard.detach(rows);
        task.stats().stragglersDetached(left.size());
        return true;
    }

    private void giveUp() {
        task.stats().latchTimedOut();
        task.listener().latchTimedOut(task.name(), shard.shard);
        log.log(
                Level.WARNING,
                "Task " + task.name() + " shard " + shard.shard + ": round still running after "
                        + task.definition().rounds().timeout() + " (scan.tasks." + task.name() + ".round-timeout);"
                        + " what finished is written back, rows still in handlers are recorded failed and the"
                        + " rest stay pending; the shard goes on");
        lanes.forEach(lane -> lane.abandon("round timed out after "
                + task.definition().rounds().timeout() + " (scan.tasks." + task.name() + ".round-timeout)"));
    }

    /** A commit during the round: a failure is logged and the outcomes are written with the next one. */
    private void flushQuietly() {
        try {
            flush();
        } catch (RuntimeException e) {
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " shard " + shard.shard + ": write-back during the round failed,"
                            + " tried again with the next one: " + e);
        }
    }

    /** Writes back what finished since the last flush; returns {@code false} when the fence refused it. */
    boolean flush() {
        Outcomes.Batch batch = outcomes.drain(
                shard.shard, shard.epoch, task.countingRun(), task.clock().now());
        if (batch.isEmpty()) {
            outcomes.written(batch);
            return true;
        }
        if (!task.store().writeBack(task.definition(), batch.writeBack())) {
            // logged here, whether or not the loss was noticed before: it is what the fence refused
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " shard " + shard.shard + ": write-back under fence epoch " + shard.epoch
                            + " refused, a newer owner has the shard; "
                            + batch.writeBack().size()
                            + " outcomes discarded, the new owner runs those rows again");
            shard.lose("a newer owner took it (fence epoch " + shard.epoch + " superseded)");
            // counted after the lines and the loss: whoever sees the count finds both
            task.stats().writeBackRefused();
            // a fence only moves forward: written again, they would be refused (and counted) again
            outcomes.written(batch);
            return false;
        }
        outcomes.written(batch);
        task.stats().recorded(batch.writeBack());
        return true;
    }
}
