package io.shardscan.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import io.shardscan.testsupport.CountingDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * db-scheduler (Maven Central) on the same PostgreSQL: {@code instances} schedulers with {@code threads}
 * threads each, lock-and-fetch polling, one no-op one-time task with {@code rows} due executions in
 * {@code bench_scheduled_tasks} (the PostgreSQL DDL of db-scheduler's README). Measures from the start
 * of the schedulers until the table is empty.
 */
final class DbSchedulerRun {

    /** db-scheduler's table, renamed to stay among the benchmark's tables. */
    static final String TABLE = "bench_scheduled_tasks";

    private DbSchedulerRun() {}

    /** Drops and creates db-scheduler's table with the indexes of its README's PostgreSQL DDL. */
    static void createTable(Pg pg) {
        pg.jdbc().execute("DROP TABLE IF EXISTS " + TABLE);
        pg.jdbc()
                .execute("CREATE TABLE " + TABLE + " (task_name TEXT NOT NULL, task_instance TEXT NOT NULL,"
                        + " task_data BYTEA, execution_time TIMESTAMP WITH TIME ZONE NOT NULL, picked BOOLEAN NOT NULL,"
                        + " picked_by TEXT, last_success TIMESTAMP WITH TIME ZONE, last_failure TIMESTAMP WITH TIME ZONE,"
                        + " consecutive_failures INT, last_heartbeat TIMESTAMP WITH TIME ZONE, version BIGINT NOT NULL,"
                        + " priority SMALLINT, PRIMARY KEY (task_name, task_instance))");
        pg.jdbc().execute("CREATE INDEX bench_st_execution_time_idx ON " + TABLE + " (execution_time)");
        pg.jdbc().execute("CREATE INDEX bench_st_last_heartbeat_idx ON " + TABLE + " (last_heartbeat)");
        pg.jdbc()
                .execute("CREATE INDEX bench_st_priority_execution_time_idx ON " + TABLE
                        + " (priority DESC, execution_time ASC)");
    }

    /** Runs it; returns the nanoseconds from start to an empty table, and what it cost the database. */
    static Measured run(Bench bench, int instances, int threads, long rows) throws Exception {
        Pg pg = bench.pg(4);
        createTable(pg);
        OneTimeTask<Void> task = Tasks.oneTime("bench-noop").execute((instance, context) -> {});
        // the same rows as SchedulerClient.schedule would write, inserted in one statement
        pg.jdbc()
                .update(
                        "INSERT INTO " + TABLE + " (task_name, task_instance, execution_time, picked, version)"
                                + " SELECT 'bench-noop', 'row-' || g, now() - INTERVAL '1 minute', false, 1"
                                + " FROM generate_series(1, ?) g",
                        rows);
        pg.execute("VACUUM ANALYZE " + TABLE);
        List<Scheduler> schedulers = new ArrayList<>();
        List<Pg> pools = new ArrayList<>();
        List<CountingDataSource> counted = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            pools.add(bench.pg(threads + 2));
            counted.add(new CountingDataSource(pools.get(i).dataSource()));
            schedulers.add(Scheduler.create(counted.get(i).dataSource(), task)
                    .tableName(TABLE)
                    .schedulerName(new SchedulerName.Fixed("bench-" + i))
                    .threads(threads)
                    .pollUsingLockAndFetch(0.5, 1.0)
                    .pollingInterval(Duration.ofSeconds(1))
                    .build());
        }
        DbCost.Window cost = DbCost.Window.open(bench.pgUrl());
        long start = System.nanoTime();
        schedulers.forEach(Scheduler::start);
        try {
            Await.until(
                    "db-scheduler to run every execution", Duration.ofHours(1), Duration.ofMillis(100), () -> pg.jdbc()
                            .queryForObject("SELECT NOT EXISTS (SELECT 1 FROM " + TABLE + ")", Boolean.class));
            long nanos = System.nanoTime() - start;
            return new Measured(
                    nanos,
                    rows,
                    cost.close(counted.stream()
                            .mapToLong(CountingDataSource::total)
                            .sum()));
        } finally {
            schedulers.parallelStream().forEach(Scheduler::stop);
            pg.jdbc().execute("DROP TABLE IF EXISTS " + TABLE);
            pools.forEach(Pg::close);
            pg.close();
        }
    }
}
