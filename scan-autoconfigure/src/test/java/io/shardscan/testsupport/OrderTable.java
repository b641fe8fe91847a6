package io.shardscan.testsupport;

import io.shardscan.core.Outcome;
import io.shardscan.core.Row;
import io.shardscan.core.ScanContext;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The scanned table of the tests, {@code tb_order}, with its effects table {@code effect}, created
 * with the DDL and index the README documents for each database.
 */
public final class OrderTable {

    private final JdbcTemplate jdbc;
    private final String product;

    public OrderTable(DataSource dataSource) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.product = jdbc.execute((java.sql.Connection c) -> c.getMetaData().getDatabaseProductName())
                .toLowerCase(Locale.ROOT);
    }

    public JdbcTemplate jdbc() {
        return jdbc;
    }

    public boolean postgres() {
        return product.contains("postgres");
    }

    private boolean isMySql() {
        return product.contains("mysql") || product.contains("mariadb");
    }

    /** Drops and creates tb_order (with the scan index when {@code indexed}) and an empty effect table. */
    public OrderTable recreate(int shards, boolean indexed) {
        jdbc.execute("DROP TABLE IF EXISTS tb_order");
        jdbc.execute("DROP TABLE IF EXISTS effect");
        jdbc.execute("CREATE TABLE tb_order (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                + " phone VARCHAR(32), status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                + " updated_at " + (isMySql() ? "DATETIME(3)" : "TIMESTAMP") + " NOT NULL, last_error VARCHAR(512))");
        jdbc.execute("CREATE TABLE effect (order_id BIGINT NOT NULL, user_id BIGINT NOT NULL, node VARCHAR(128),"
                + " epoch BIGINT NOT NULL, seq BIGINT NOT NULL)");
        if (indexed) {
            if (postgres()) {
                jdbc.execute("CREATE INDEX tb_order_scan_idx ON tb_order (mod(user_id, " + shards + "), order_id)"
                        + " WHERE status = 0");
                jdbc.execute("CREATE INDEX tb_order_retry_idx ON tb_order (mod(user_id, " + shards + "), order_id)"
                        + " WHERE status = 0 AND retry_count > 0");
            } else {
                String generated = product.equals("h2")
                        ? "INT GENERATED ALWAYS AS (MOD(user_id, " + shards + "))"
                        : "INT AS (MOD(user_id, " + shards + ")) STORED";
                jdbc.execute("ALTER TABLE tb_order ADD COLUMN scan_shard " + generated);
                jdbc.execute("CREATE INDEX tb_order_scan_idx ON tb_order (status, scan_shard, retry_count, order_id)");
            }
        }
        return this;
    }

    /** Inserts orders 1..count; order i belongs to user {@code i % users}. */
    public OrderTable insert(int count, int users, Instant updatedAt) {
        List<Object[]> rows = new ArrayList<>(count);
        for (long id = 1; id <= count; id++) {
            rows.add(new Object[] {id, id % users, "+1555" + id, Timestamp.from(updatedAt)});
        }
        for (int from = 0; from < rows.size(); from += 5000) {
            jdbc.batchUpdate(
                    "INSERT INTO tb_order (order_id, user_id, phone, updated_at) VALUES (?, ?, ?, ?)",
                    rows.subList(from, Math.min(rows.size(), from + 5000)));
        }
        return this;
    }

    /** Records that a handler ran for {@code row}: on which node, under which lease epoch, in which order. */
    public Outcome recordEffect(Row row, ScanContext ctx, long seq) {
        jdbc.update(
                "INSERT INTO effect (order_id, user_id, node, epoch, seq) VALUES (?, ?, ?, ?, ?)",
                row.id(),
                row.shardKey(),
                ctx.node(),
                ctx.epoch(),
                seq);
        return Outcome.done();
    }

    public int count(String where) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM tb_order WHERE " + where, Integer.class);
    }

    public int effects() {
        return jdbc.queryForObject("SELECT COUNT(*) FROM effect", Integer.class);
    }

    public int duplicateEffects() {
        return jdbc.queryForObject(
                "SELECT COUNT(*) FROM (SELECT order_id FROM effect GROUP BY order_id" + " HAVING COUNT(*) > 1) d",
                Integer.class);
    }

    /** Creates the scan_lease, scan_member and scan_fence tables from the starter's own script. */
    public OrderTable coordinationTables() {
        String name = postgres() ? "postgresql" : product.equals("h2") ? "h2" : "mysql";
        org.springframework.jdbc.datasource.init.ResourceDatabasePopulator populator =
                new org.springframework.jdbc.datasource.init.ResourceDatabasePopulator(
                        new org.springframework.core.io.ClassPathResource("io/shardscan/jdbc/schema-" + name + ".sql"));
        populator.execute(jdbc.getDataSource());
        jdbc.execute("DELETE FROM scan_lease");
        jdbc.execute("DELETE FROM scan_member");
        jdbc.execute("DELETE FROM scan_fence");
        return this;
    }
}
