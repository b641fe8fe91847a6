package io.shardscan.sample;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.jdbc.SqlDialect;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Creates tb_order (with its scan index) and sms_outbox, tb_payment_due (with its due index) and
 * closed_order, tb_order_sync (with its scan index) and store_received, tb_user (no status column:
 * {@code notify-users} scans it by id ranges) and user_outbox when missing, on any database Shardscan
 * has a dialect for (the indexes are the ones {@link SchemaDdl} writes); seeds orders into an empty
 * tb_order, with a payment deadline for the unpaid ones, and users into an empty tb_user. Runs while
 * the context starts, before the scan engine does.
 */
@Component
public class SampleSchema implements InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(SampleSchema.class);
    private static final int SHARDS = 64;

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final SampleProperties properties;
    private final ObjectProvider<SqlDialect> dialect;

    public SampleSchema(
            JdbcTemplate jdbc,
            TransactionTemplate transactions,
            SampleProperties properties,
            ObjectProvider<SqlDialect> dialect) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.properties = properties;
        this.dialect = dialect;
    }

    @Override
    public void afterPropertiesSet() {
        // Shardscan's dialect of the database, or the one it would detect when scan.enabled=false
        SqlDialect sql =
                dialect.getIfAvailable(() -> SqlDialect.detect(java.util.Objects.requireNonNull(jdbc.getDataSource())));
        statements(sql).forEach(this::executeIfMissing);
        seed();
        seedUsers();
    }

    private static List<String> statements(SqlDialect dialect) {
        String timestamp = dialect.timestampType();
        List<String> sql = new ArrayList<>();
        sql.add("CREATE TABLE IF NOT EXISTS tb_order (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                + " phone VARCHAR(32), product_name VARCHAR(128), status SMALLINT NOT NULL DEFAULT 0,"
                + " retry_count INT NOT NULL DEFAULT 0, updated_at " + timestamp + " NOT NULL,"
                + " last_error VARCHAR(512))");
        // each task's shard column (where the database keeps one) and indexes, as its startup check
        // (index-check: fail) asks for them; on a restart they are there and executeIfMissing skips them
        sql.addAll(SchemaDdl.scanIndexStatements(dialect, task("order-sms", "tb_order", "user_id", null)));
        sql.add("CREATE TABLE IF NOT EXISTS sms_outbox (order_id BIGINT NOT NULL, node_id VARCHAR(128) NOT NULL,"
                + " epoch BIGINT NOT NULL, sent_at " + timestamp + " NOT NULL)");
        // order-close: one payment deadline per unpaid order, due at created_at + the task's delay
        sql.add("CREATE TABLE IF NOT EXISTS tb_payment_due (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                + " created_at " + timestamp + " NOT NULL, status SMALLINT NOT NULL DEFAULT 0,"
                + " retry_count INT NOT NULL DEFAULT 0, updated_at " + timestamp + " NOT NULL,"
                + " last_error VARCHAR(512))");
        sql.addAll(
                SchemaDdl.scanIndexStatements(dialect, task("order-close", "tb_payment_due", "user_id", "created_at")));
        // order-sync: one row per order to push to its store; the store is the shard key and the endpoint
        sql.add("CREATE TABLE IF NOT EXISTS tb_order_sync (order_id BIGINT PRIMARY KEY, store_id INT NOT NULL,"
                + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0, updated_at " + timestamp
                + " NOT NULL, last_error VARCHAR(512))");
        sql.addAll(SchemaDdl.scanIndexStatements(dialect, task("order-sync", "tb_order_sync", "store_id", null)));
        sql.add("CREATE TABLE IF NOT EXISTS store_received (store_id INT NOT NULL, order_id BIGINT NOT NULL)");
        sql.add("CREATE TABLE IF NOT EXISTS closed_order (order_id BIGINT NOT NULL, node_id VARCHAR(128) NOT NULL,"
                + " epoch BIGINT NOT NULL, closed_at " + timestamp + " NOT NULL)");
        // notify-users: a plain users table, no status, retry or shard column; the primary key is the only index
        sql.add("CREATE TABLE IF NOT EXISTS tb_user (user_id BIGINT PRIMARY KEY, email VARCHAR(128) NOT NULL,"
                + " created_at " + timestamp + " NOT NULL)");
        sql.add("CREATE TABLE IF NOT EXISTS user_outbox (user_id BIGINT NOT NULL, email VARCHAR(128) NOT NULL,"
                + " node_id VARCHAR(128) NOT NULL, epoch BIGINT NOT NULL, sent_at " + timestamp + " NOT NULL)");
        return sql;
    }

    /** A task of application.yml as far as its indexes go: the table, its shard key, 64 shards, the due-at column. */
    private static TaskDefinition task(String name, String table, String shardKey, @Nullable String dueAt) {
        return TaskDefinition.builder(name)
                .table(table)
                .idColumn("order_id")
                .shardKeyColumn(shardKey)
                .shards(SHARDS)
                .dueAtColumn(dueAt)
                .build();
    }

    private void executeIfMissing(String statement) {
        try {
            jdbc.execute(statement);
        } catch (DataAccessException e) {
            // another node created it a moment ago; the next statement finds it there
            log.debug("Skipped '{}': {}", statement, e.getMessage());
        }
    }

    private void seed() {
        Integer existing = jdbc.queryForObject("SELECT COUNT(*) FROM tb_order", Integer.class);
        if (existing == null || existing > 0 || properties.seedOrders() == 0) {
            return;
        }
        Timestamp now = Timestamp.from(Instant.now());
        List<Object[]> rows = new ArrayList<>();
        List<Object[]> unpaid = new ArrayList<>();
        List<Object[]> sync = new ArrayList<>();
        for (long id = 1; id <= properties.seedOrders(); id++) {
            // about five orders per user, so that one user's orders share a shard and a lane
            long user = 1 + (id * 7919) % Math.max(1, properties.seedOrders() / 5);
            rows.add(new Object[] {id, user, "+86138" + String.format("%08d", id), "product-" + (id % 17), now});
            sync.add(new Object[] {id, (int) (id % properties.stores()), now});
            if (id % 10 >= 7) {
                // three orders in ten are not paid: each gets a payment deadline, counted from its creation
                unpaid.add(new Object[] {id, user});
            }
        }
        try {
            transactions.executeWithoutResult(status -> {
                jdbc.batchUpdate(
                        "INSERT INTO tb_order (order_id, user_id, phone, product_name, updated_at) VALUES (?, ?, ?, ?, ?)",
                        rows);
                jdbc.batchUpdate(
                        "INSERT INTO tb_payment_due (order_id, user_id, created_at, updated_at)"
                                + " VALUES (?, ?, LOCALTIMESTAMP(3), LOCALTIMESTAMP(3))",
                        unpaid);
                jdbc.batchUpdate("INSERT INTO tb_order_sync (order_id, store_id, updated_at) VALUES (?, ?, ?)", sync);
            });
            log.info(
                    "Seeded {} orders into tb_order, {} of them unpaid into tb_payment_due",
                    rows.size(),
                    unpaid.size());
        } catch (DataAccessException e) {
            log.info(
                    "tb_order was seeded by another node ({})",
                    e.getMostSpecificCause().getMessage());
        }
    }

    private void seedUsers() {
        Integer existing = jdbc.queryForObject("SELECT COUNT(*) FROM tb_user", Integer.class);
        if (existing == null || existing > 0 || properties.seedUsers() == 0) {
            return;
        }
        Timestamp now = Timestamp.from(Instant.now());
        List<Object[]> users = new ArrayList<>(properties.seedUsers());
        for (long i = 1; i <= properties.seedUsers(); i++) {
            // ids 1-9, 11-19, ...: every tenth id is missing, range mode covers the gaps without reading them
            long id = i + (i - 1) / 9;
            users.add(new Object[] {id, "user" + id + "@example.com", now});
        }
        try {
            transactions.executeWithoutResult(status ->
                    jdbc.batchUpdate("INSERT INTO tb_user (user_id, email, created_at) VALUES (?, ?, ?)", users));
            log.info(
                    "Seeded {} users into tb_user (ids 1-{}, every tenth missing)",
                    users.size(),
                    users.get(users.size() - 1)[0]);
        } catch (DataAccessException e) {
            log.info(
                    "tb_user was seeded by another node ({})",
                    e.getMostSpecificCause().getMessage());
        }
    }
}
