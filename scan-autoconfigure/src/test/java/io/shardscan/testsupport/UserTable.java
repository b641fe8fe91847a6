package io.shardscan.testsupport;

import io.shardscan.jdbc.SqlDialect;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A table without a status column for range tasks, {@code tb_user (user_id, name)}, and the table
 * {@code notified} where test handlers record each call with its node and epoch. Ids are inserted by
 * the database itself (a series), so a million of them take seconds.
 */
public final class UserTable {

    private final JdbcTemplate jdbc;
    private final SqlDialect dialect;

    public UserTable(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.dialect = SqlDialect.detect(dataSource);
    }

    public JdbcTemplate jdbc() {
        return jdbc;
    }

    /** Drops and creates both tables, empty. */
    public UserTable recreate() {
        jdbc.execute("DROP TABLE IF EXISTS tb_user");
        jdbc.execute("DROP TABLE IF EXISTS notified");
        jdbc.execute("CREATE TABLE tb_user (user_id BIGINT PRIMARY KEY, name VARCHAR(64))");
        jdbc.execute("CREATE TABLE notified (user_id BIGINT NOT NULL, node VARCHAR(128), epoch BIGINT NOT NULL)");
        return this;
    }

    /**
     * Inserts the ids {@code first + step * i} for {@code i} in {@code 0..count-1}, leaving out every
     * {@code i} divisible by 7: gaps inside ranges, and with a large step, empty ranges.
     *
     * @return how many ids were inserted
     */
    public int insertWithGaps(long first, int count, long step) {
        String series =
                switch (dialect()) {
                    case "postgresql" -> "SELECT s FROM generate_series(0, " + (count - 1) + ") AS t(s)";
                    case "h2" -> "SELECT X AS s FROM SYSTEM_RANGE(0, " + (count - 1) + ")";
                    default -> "SELECT seq AS s FROM seq_0_to_" + (count - 1);
                };
        return jdbc.update("INSERT INTO tb_user (user_id, name) SELECT " + first + " + " + step
                + " * s, CONCAT('user-', s) FROM (" + series + ") q WHERE MOD(s, 7) <> 0");
    }

    /** Inserts one id. */
    public void insert(long id) {
        jdbc.update("INSERT INTO tb_user (user_id, name) VALUES (?, ?)", id, "user-" + id);
    }

    public long users() {
        return jdbc.queryForObject("SELECT COUNT(*) FROM tb_user", Long.class);
    }

    /** Distinct ids the handlers recorded. */
    public long notifiedIds() {
        return jdbc.queryForObject("SELECT COUNT(DISTINCT user_id) FROM notified", Long.class);
    }

    /** Calls beyond the first per id. */
    public long duplicates() {
        return jdbc.queryForObject("SELECT COUNT(*) - COUNT(DISTINCT user_id) FROM notified", Long.class);
    }

    /** Ids of tb_user no handler recorded. */
    public long missed() {
        return missed(Long.MAX_VALUE);
    }

    /** The same among the users with an id up to {@code lastId}. */
    public long missed(long lastId) {
        return jdbc.queryForObject(
                "SELECT COUNT(*) FROM tb_user u WHERE u.user_id <= ? AND NOT EXISTS (SELECT 1 FROM notified n WHERE"
                        + " n.user_id = u.user_id)",
                Long.class,
                lastId);
    }

    /** The database's short name, as the schema scripts name it. */
    public String dialect() {
        return dialect.name();
    }
}
