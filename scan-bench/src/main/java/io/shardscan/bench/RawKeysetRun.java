package io.shardscan.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The raw limit of a one-off job: one JDBC loop, one connection in autocommit, paging {@code
 * bench_user} by keyset ({@code WHERE id > ? ORDER BY id LIMIT page}) and calling the job's method per
 * row. No cursor, no progress, no takeover: what one would write by hand for a single run.
 */
final class RawKeysetRun {

    private RawKeysetRun() {}

    /** Reads every row of {@code bench_user} once; returns the rows handed to {@code jobs}. */
    static long run(Pg pg, RangeJobs jobs, int page) throws SQLException {
        long rows = 0;
        try (Connection connection = pg.dataSource().getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT id, email FROM " + RangeJobs.TABLE + " WHERE id > ? ORDER BY id LIMIT ?")) {
            connection.setAutoCommit(true);
            long lastId = Long.MIN_VALUE;
            while (true) {
                select.setLong(1, lastId);
                select.setInt(2, page);
                int read = 0;
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        lastId = rs.getLong(1);
                        jobs.handle(new RangeJobs.BenchUser(lastId, rs.getString(2)));
                        read++;
                    }
                }
                rows += read;
                if (read < page) {
                    return rows;
                }
            }
        }
    }
}
