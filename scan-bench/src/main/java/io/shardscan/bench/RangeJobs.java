package io.shardscan.bench;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanTaskRegistry;
import io.shardscan.autoconfigure.TaskMode;
import io.shardscan.autoconfigure.TaskProperties;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RunMode;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * The range scenario's one-off job as an application writes it: a bean with a {@link ScanTask
 * @ScanTask} method taking a record of {@code bench_user}'s columns, configured with {@code mode:
 * range} and {@code run: once}, found through the starter's {@link ScanTaskRegistry} as
 * {@link ScanTaskJobs} finds the throughput task. The raw loop calls the same method per row.
 */
final class RangeJobs {

    /** The task's name, as its {@code scan.tasks} key. */
    static final String TASK = "bench-range";

    /** The scanned table: ids 1..rows, no status column. */
    static final String TABLE = "bench_user";

    /** A row of {@code bench_user}. */
    record BenchUser(long id, String email) {}

    private final LongAdder handled = new LongAdder();

    @ScanTask(TASK)
    public void handle(BenchUser user) {
        // the no-op work both sides do per row
        handled.increment();
    }

    /** The rows the method received. */
    long handled() {
        return handled.sum();
    }

    /** The range job of {@code bench_user} with this bean's handler: ranges of 10 000 ids, pages of {@code page}. */
    RangeJob job(int workers, int page) {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerSingleton("benchRangeJobs", this);
        TaskProperties properties = new TaskProperties();
        properties.setMode(TaskMode.RANGE);
        properties.setRun(RunMode.ONCE);
        properties.setTable(TABLE);
        properties.setIdColumn("id");
        properties.setPageSize(page);
        properties.setWorkers(workers);
        ScanTaskRegistry.Found found = new ScanTaskRegistry(beans, null).find(Map.of(TASK, properties));
        if (!found.problems().isEmpty()) {
            throw new InvalidTaskException(found.problems());
        }
        return found.ranges().get(0);
    }
}
