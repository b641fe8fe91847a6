package io.shardscan.jdbc;

import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/** A counter row in a small table of the coordinator's database, read and written by separate statements. */
final class JdbcCounter implements ShardCoordinatorContractTests.Counter {

    private final JdbcTemplate jdbc;
    private final String name;

    JdbcCounter(DataSource dataSource, String name) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.name = name;
        jdbc.execute(
                "CREATE TABLE IF NOT EXISTS scan_fuzz_counter (name VARCHAR(64) PRIMARY KEY, total BIGINT NOT NULL)");
        jdbc.update("INSERT INTO scan_fuzz_counter (name, total) VALUES (?, 0)", name);
    }

    @Override
    public long read() {
        Long total = jdbc.queryForObject("SELECT total FROM scan_fuzz_counter WHERE name = ?", Long.class, name);
        return total == null ? 0 : total;
    }

    @Override
    public void write(long value) {
        jdbc.update("UPDATE scan_fuzz_counter SET total = ? WHERE name = ?", value, name);
    }
}
