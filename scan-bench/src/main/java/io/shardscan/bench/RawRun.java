package io.shardscan.bench;

import io.shardscan.jdbc.SchemaDdl;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The raw limit: {@code threads} JDBC loops, thread i owning the shards {@code s ≡ i (mod threads)};
 * each pages its shards' pending rows by keyset on the scan index and marks each page done with one
 * {@code UPDATE ... WHERE id = ANY(?)}, in autocommit. No leases, no fences, no handler.
 */
final class RawRun {

    static final int PAGE = 200;

    private RawRun() {}

    /** Drains {@code bench_task}; returns the rows it marked done. */
    static long run(DataSource dataSource, int threads) throws Exception {
        AtomicLong done = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int first = i;
                futures.add(pool.submit(() -> {
                    drain(dataSource, first, threads, done);
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return done.get();
    }

    private static void drain(DataSource dataSource, int first, int step, AtomicLong done) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement("SELECT id FROM " + Pg.TABLE
                        + " WHERE status = 0 AND " + SchemaDdl.shardOf("shard_key", Pg.SHARDS)
                        + " = ? AND id > ? ORDER BY id LIMIT "
                        + PAGE);
                PreparedStatement update = connection.prepareStatement(
                        "UPDATE " + Pg.TABLE + " SET status = 1, updated_at = LOCALTIMESTAMP WHERE id = ANY(?)")) {
            connection.setAutoCommit(true);
            for (int shard = first; shard < Pg.SHARDS; shard += step) {
                long lastId = 0;
                while (true) {
                    select.setInt(1, shard);
                    select.setLong(2, lastId);
                    List<Long> ids = new ArrayList<>(PAGE);
                    try (ResultSet rs = select.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getLong(1));
                        }
                    }
                    if (ids.isEmpty()) {
                        break;
                    }
                    Array array = connection.createArrayOf("bigint", ids.toArray());
                    update.setArray(1, array);
                    done.addAndGet(update.executeUpdate());
                    lastId = ids.get(ids.size() - 1);
                    if (ids.size() < PAGE) {
                        break;
                    }
                }
            }
        }
    }
}
