package io.shardscan.core;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One round: one shard × one tier. Starts only with at least one free worker, fetches one page,
 * splits it into as many lanes (by shard key) as workers it holds, runs the lanes on the task's
 * pool, waits on a latch, and writes the outcomes back in one fenced batch. A page is never cut
 * to the workers free at that instant: lanes end one by one, and pages cut to them would turn one
 * fetch and write-back into many (measured: a third of the throughput). Each lane gives its worker back as soon as it ends, so a slow row holds
 * one worker, not the round's.
 */
final class Round {

    private static final System.Logger log = System.getLogger(Round.class.getName());

    private final TaskContext task;
    private final OwnedShard shard;
    private final OwnedShard.TierCursor cursor;
    private final int permits;

    Round(TaskContext task, OwnedShard shard, OwnedShard.TierCursor cursor, int permits) {
        this.task = task;
        this.shard = shard;
        this.cursor = cursor;
        this.permits = permits;
    }

    /** Runs the round on the calling thread; returns the worker permits it was given, whatever happens. */
    void run() {
        long started = task.clock().nanos();
        int held = permits;
        try {
            Instant now = task.clock().now();
            int limit = task.definition().pageSize();
            List<Row> page = task.store().fetch(task.definition(), request(now, limit));
            task.stats().storeReached(true);
            if (page.isEmpty() || !shard.canDispatch(task.clock().nanos())) {
                cursor.advance(List.of(), limit, now);
                return;
            }
            List<List<Row>> lanes = Lanes.split(page, Math.min(permits, page.size()));
            task.workerPermits().release(held - lanes.size());
            held = lanes.size();
            Outcomes outcomes = new Outcomes(task.definition(), page, task.errorLength());
            runLanes(lanes, outcomes);
            held = 0;
            writeBack(outcomes);
            cursor.advance(page, limit, task.clock().now());
            task.listener()
                    .roundCompleted(
                            task.name(),
                            shard.shard,
                            page.size(),
                            Duration.ofNanos(task.clock().nanos() - started));
        } catch (RuntimeException e) {
            task.stats().storeReached(false);
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " shard " + shard.shard + ": round failed, its rows stay"
                            + " pending and are fetched again: " + e,
                    e);
            cursor.advance(List.of(), Integer.MAX_VALUE, task.clock().now().plusSeconds(1));
        } finally {
            task.workerPermits().release(held);
        }
    }

    private FetchRequest request(Instant now, int limit) {
        Tier tier = cursor.tier;
        boolean openEnded = task.definition().onExhausted() == OnExhausted.KEEP_RETRYING
                && tier.equals(
                        task.definition().tiers().get(task.definition().tiers().size() - 1));
        return new FetchRequest(
                shard.shard,
                tier.minRetries(),
                openEnded ? Integer.MAX_VALUE : tier.maxRetries(),
                tier.minRetries() == 0 ? now : now.minus(tier.interval()),
                cursor.afterId,
                limit);
    }

    private void runLanes(List<List<Row>> lanes, Outcomes outcomes) {
        CountDownLatch latch = new CountDownLatch(lanes.size());
        Semaphore permits = task.workerPermits();
        Executor workers = task.workers();
        for (List<Row> lane : lanes) {
            Runnable work = task.listener()
                    .around(task.name(), shard.shard, shard.epoch, new Lane(task, shard, cursor.tier, lane, outcomes));
            workers.execute(() -> {
                try {
                    work.run();
                } finally {
                    permits.release();
                    latch.countDown();
                    task.wakeUp();
                }
            });
        }
        awaitLatch(latch);
    }

    private void awaitLatch(CountDownLatch latch) {
        try {
            if (latch.await(task.definition().roundTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
            task.stats().latchTimedOut();
            task.listener().latchTimedOut(task.name(), shard.shard);
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " shard " + shard.shard + ": round still running after "
                            + task.definition().roundTimeout() + " (scan.tasks." + task.name()
                            + ".round-timeout); the shard"
                            + " waits for its slow rows, other shards go on");
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for lanes", e);
        }
    }

    private void writeBack(Outcomes outcomes) {
        WriteBack batch =
                outcomes.toWriteBack(shard.shard, shard.epoch, task.clock().now());
        if (batch.isEmpty()) {
            return;
        }
        if (!task.store().writeBack(task.definition(), batch)) {
            log.log(
                    Level.WARNING,
                    "Task " + task.name() + " shard " + shard.shard + ": epoch " + shard.epoch
                            + " was superseded by a newer owner; " + batch.size() + " outcomes discarded, the new owner"
                            + " runs those rows again");
            shard.fenceOff();
            task.listener().leaseLost(task.name(), shard.shard);
            return;
        }
        task.stats().recorded(batch);
    }

    /** Splits a page into lanes by shard key, keeping id order within each lane. */
    static final class Lanes {
        private Lanes() {}

        static List<List<Row>> split(List<Row> page, int count) {
            List<List<Row>> lanes = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                lanes.add(new ArrayList<>());
            }
            for (Row row : page) {
                lanes.get(Math.floorMod(Long.hashCode(row.shardKey()), count)).add(row);
            }
            lanes.removeIf(List::isEmpty);
            return lanes;
        }
    }
}
