package io.shardscan.bench;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanTaskRegistry;
import io.shardscan.core.ScanEngine;

/**
 * The latency task as an application writes it, found through the starter's {@link ScanTaskRegistry}
 * as {@link ScanTaskJobs} is: its {@link ScanTask @ScanTask} method notes when each row's handler
 * started in a {@link Pickups}.
 */
final class LatencyJobs {

    /** The task's name, as its {@code scan.tasks} key. */
    static final String TASK = "bench-latency";

    /** The columns the handler reads. */
    record BenchRow(long id, long shardKey) {}

    private final Pickups pickups;

    LatencyJobs(Pickups pickups) {
        this.pickups = pickups;
    }

    @ScanTask(TASK)
    public void handle(BenchRow row) {
        pickups.started(row.id());
    }

    /** The task of {@code bench_task} with this bean's handler: 64 shards, the documented default tiers. */
    ScanEngine.ScanTask task(int workers) {
        return BenchTasks.registered(TASK, this, BenchTasks.ofBenchTable(workers));
    }
}
