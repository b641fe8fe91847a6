package io.shardscan.bench;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanTaskRegistry;
import io.shardscan.autoconfigure.TaskProperties;
import io.shardscan.core.ScanEngine;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The throughput task as an application writes it: a bean with a {@link ScanTask @ScanTask} method
 * taking a record of the two columns it reads. {@link #task} finds it through the starter's own
 * {@link ScanTaskRegistry}, so its rows go through the same discovery, binding and column selection
 * as in a Spring Boot application; only the auto-configuration around it is left out. A node process of
 * {@link ApplicationNodeProcess} runs it in a Spring Boot application with {@link #properties}.
 */
final class ScanTaskJobs {

    /** The task's name, as its {@code scan.tasks} key. */
    static final String TASK = "bench-throughput";

    private static final int PAGE_SIZE = 200;

    /** The columns the handler reads; the fetch selects these and the engine's own. */
    record BenchRow(long id, long shardKey) {}

    private final LongAdder bound = new LongAdder();
    private final LongAdder keys = new LongAdder();

    @ScanTask(TASK)
    public void handle(BenchRow row) {
        bound.increment();
        keys.add(row.shardKey());
    }

    /** The rows the method received, each bound to a {@link BenchRow}. */
    long bound() {
        return bound.sum();
    }

    /**
     * The task of {@code bench_task} with this bean's handler, as the registry pairs them: 64 shards,
     * pages of 200, the given workers.
     */
    ScanEngine.ScanTask task(int workers) {
        TaskProperties properties = BenchTasks.ofBenchTable(workers);
        properties.setPageSize(PAGE_SIZE);
        return BenchTasks.registered(TASK, this, properties);
    }

    /** The same task as an application configures it, {@code scan.tasks.bench-throughput.*}, for this bean. */
    static Map<String, Object> properties(int workers) {
        Map<String, Object> properties = BenchTasks.propertiesOfBenchTable(TASK, workers);
        properties.put("scan.tasks." + TASK + ".page-size", PAGE_SIZE);
        return properties;
    }
}
