package io.shardscan.bench;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.CountingDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Shardscan nodes as separate {@link ScanEngine}s in this JVM, each with its own pool and Redis
 * connection, draining {@code bench_task} from start until every row is done.
 */
final class EngineRun {

    private EngineRun() {}

    /**
     * Starts {@code nodes} engines at once and waits until they marked {@code rows} rows done.
     *
     * @return the nanoseconds from the first start until then
     */
    static long drain(Bench bench, String task, int nodes, int workers, long rows, TaskHandler handler)
            throws Exception {
        return drain(bench, new ScanEngine.ScanTask(Bench.task(task, workers), handler), nodes, rows)
                .nanos();
    }

    /**
     * The same for a task with its handler, as a {@code @ScanTask} method is paired with its definition.
     *
     * @return the nanoseconds, and what the engines cost the database meanwhile
     */
    static Measured drain(Bench bench, ScanEngine.ScanTask scanTask, int nodes, long rows) throws Exception {
        String task = scanTask.definition().name();
        bench.clearRedis(task);
        List<ScanEngine> engines = new ArrayList<>();
        List<Pg> pools = new ArrayList<>();
        List<CountingDataSource> counted = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            pools.add(bench.pg(10));
            counted.add(new CountingDataSource(pools.get(i).dataSource()));
            engines.add(bench.engine(
                    task + "-node-" + i,
                    scanTask.definition(),
                    scanTask.handler(),
                    counted.get(i).dataSource()));
        }
        DbCost.Window cost = DbCost.Window.open(bench.pgUrl());
        long start = System.nanoTime();
        engines.forEach(ScanEngine::start);
        try {
            Await.until(
                    "Shardscan to mark " + rows + " rows done",
                    Duration.ofHours(1),
                    Duration.ofMillis(20),
                    () -> processed(engines, task) >= rows);
            long nanos = System.nanoTime() - start;
            return new Measured(
                    nanos,
                    rows,
                    cost.close(counted.stream()
                            .mapToLong(CountingDataSource::total)
                            .sum()));
        } finally {
            engines.parallelStream().forEach(ScanEngine::stop);
            pools.forEach(Pg::close);
        }
    }

    static long processed(List<ScanEngine> engines, String task) {
        return engines.stream().mapToLong(e -> e.task(task).stats().processed()).sum();
    }
}
