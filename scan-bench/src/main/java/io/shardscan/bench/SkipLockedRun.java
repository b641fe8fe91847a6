package io.shardscan.bench;

import io.shardscan.testsupport.CountingDataSource;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The batch poller most teams write instead of a library: {@code nodes} pools of {@code threads}
 * threads, each thread claiming a batch with one {@code UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP
 * LOCKED LIMIT 200) RETURNING id} (pending → claimed, on an index of the pending rows by id), calling
 * the handler per row and marking the batch done with one {@code UPDATE … = ANY(?)}, in autocommit; a
 * thread that claims nothing stops (the table is drained). What it does not give, by design: no order
 * per key (two threads run one key's rows at once), no fencing (a thread stalled past a reclaim
 * would overwrite the next owner's work; this one never reclaims, so a dead thread's claimed rows stay
 * claimed), no retry tiers.
 */
final class SkipLockedRun {

    static final int BATCH = 200;

    /** The status of a claimed row. */
    static final int CLAIMED = 3;

    private SkipLockedRun() {}

    /** The index a competent team adds for the claim query: the pending rows by id. */
    static void createIndex(Pg pg) {
        pg.execute("CREATE INDEX bench_task_pending_idx ON " + Pg.TABLE + " (id) WHERE status = 0");
        pg.execute("ANALYZE " + Pg.TABLE);
    }

    /**
     * Drains {@code bench_task}.
     *
     * @return the time, the rows marked done and what it cost the database
     */
    static Measured run(Bench bench, int nodes, int threads, LongConsumer handler) throws Exception {
        AtomicLong done = new AtomicLong();
        List<Pg> pools = new ArrayList<>();
        List<CountingDataSource> counted = new ArrayList<>();
        ExecutorService executor = Executors.newFixedThreadPool(nodes * threads);
        for (int n = 0; n < nodes; n++) {
            Pg pool = bench.pg(threads);
            pools.add(pool);
            counted.add(new CountingDataSource(pool.dataSource()));
        }
        DbCost.Window cost = DbCost.Window.open(bench.pgUrl());
        long start = System.nanoTime();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (CountingDataSource counting : counted) {
                for (int t = 0; t < threads; t++) {
                    futures.add(executor.submit(() -> {
                        poll(counting.dataSource(), handler, done, null, () -> true);
                        return null;
                    }));
                }
            }
            for (Future<?> future : futures) {
                future.get();
            }
            long nanos = System.nanoTime() - start;
            return new Measured(
                    nanos,
                    done.get(),
                    cost.close(counted.stream()
                            .mapToLong(CountingDataSource::total)
                            .sum()));
        } finally {
            executor.shutdownNow();
            pools.forEach(Pg::close);
        }
    }

    /**
     * One poller thread: claims and runs batches while {@code running}; a claim that finds nothing ends
     * it when {@code idle} is {@code null} (a drain), else waits {@code idle} before the next (a service's
     * {@code fixedDelay} poll).
     */
    static void poll(
            DataSource dataSource,
            LongConsumer handler,
            AtomicLong done,
            @Nullable Duration idle,
            BooleanSupplier running)
            throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement claim = connection.prepareStatement("UPDATE " + Pg.TABLE + " SET status = "
                        + CLAIMED + ", updated_at = LOCALTIMESTAMP WHERE id IN (SELECT id FROM " + Pg.TABLE
                        + " WHERE status = 0 ORDER BY id LIMIT " + BATCH + " FOR UPDATE SKIP LOCKED) RETURNING id");
                PreparedStatement finish = connection.prepareStatement(
                        "UPDATE " + Pg.TABLE + " SET status = 1, updated_at = LOCALTIMESTAMP WHERE id = ANY(?)")) {
            connection.setAutoCommit(true);
            while (running.getAsBoolean()) {
                List<Long> ids = new ArrayList<>(BATCH);
                try (ResultSet rs = claim.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
                if (ids.isEmpty()) {
                    if (idle == null) {
                        return;
                    }
                    LockSupport.parkNanos(idle.toNanos());
                    continue;
                }
                for (long id : ids) {
                    handler.accept(id);
                }
                Array array = connection.createArrayOf("bigint", ids.toArray());
                finish.setArray(1, array);
                done.addAndGet(finish.executeUpdate());
            }
        }
    }
}
