package io.shardscan.bench;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanTaskRegistry;
import io.shardscan.autoconfigure.TaskProperties;
import io.shardscan.autoconfigure.TierProperties;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.ScanContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The fairness task as an application writes it, found through the starter's {@link ScanTaskRegistry} as
 * {@link ScanTaskJobs} is: its {@link ScanTask @ScanTask} method takes a fixed time per row and notes, on this
 * JVM's monotonic clock, when each shard's first row started and when the last row ended. Thread-safe.
 */
final class FairnessJobs {

    /** The task's name, as its {@code scan.tasks} key. */
    static final String TASK = "bench-fairness";

    /** The first tier's interval: short, so that the shards found with rows are probed soon after a resume. */
    static final Duration TIER0 = Duration.ofMillis(250);

    /** The columns the handler reads. */
    record BenchRow(long id, long shardKey) {}

    private final long rowNanos;
    private final Map<Integer, Long> firstStarted = new ConcurrentHashMap<>();
    private final AtomicLong lastEnded = new AtomicLong();
    private final LongAdder handlerNanos = new LongAdder();

    FairnessJobs(Duration eachRow) {
        this.rowNanos = eachRow.toNanos();
    }

    @ScanTask(TASK)
    public void handle(BenchRow row, ScanContext context) {
        long start = System.nanoTime();
        firstStarted.putIfAbsent(context.shard(), start);
        LockSupport.parkNanos(rowNanos);
        long end = System.nanoTime();
        handlerNanos.add(end - start);
        lastEnded.accumulateAndGet(end, Math::max);
    }

    /** When each shard's first row started, by shard. */
    Map<Integer, Long> firstStarted() {
        return firstStarted;
    }

    long lastEnded() {
        return lastEnded.get();
    }

    /** The handlers' time, all together. */
    double handlerSeconds() {
        return handlerNanos.sum() / (double) TimeUnit.SECONDS.toNanos(1);
    }

    /** The task of {@code bench_task} with this bean's handler: 64 shards, pages of 200, tier 0 every {@link #TIER0}. */
    ScanEngine.ScanTask task(int workers) {
        TaskProperties properties = BenchTasks.ofBenchTable(workers);
        properties.setPageSize(200);
        properties.setTiers(List.of(new TierProperties("0", TIER0)));
        return BenchTasks.registered(TASK, this, properties);
    }
}
