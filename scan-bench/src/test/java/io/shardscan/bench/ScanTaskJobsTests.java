package io.shardscan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowColumns;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.TaskHandler;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScanTaskJobsTests {

    @Test
    void theThroughputTaskRunsThroughTheScanTaskMethodAndReadsOnlyItsRecordsColumns() throws Exception {
        ScanTaskJobs jobs = new ScanTaskJobs();
        ScanEngine.ScanTask task = jobs.task(4);

        assertThat(task.definition().name()).isEqualTo(ScanTaskJobs.TASK);
        assertThat(task.definition().rounds().workers()).isEqualTo(4);
        assertThat(task.definition().rowColumns()).isEqualTo(RowColumns.matching(List.of("id", "shardKey")));
        Row row = new Row.Layout(List.of("id", "shard_key", "status")).row(7, 3, 0, new Object[] {
            7L,
            3L,
            (Row.Deferred) () -> {
                throw new AssertionError("decoded a column the record does not name");
            }
        });
        assertThat(((TaskHandler.PerRow) task.handler()).handle(row, new ScanContext(ScanTaskJobs.TASK, "n", 1, 1, 1)))
                .isNull();
        assertThat(jobs.bound()).isEqualTo(1);
    }
}
