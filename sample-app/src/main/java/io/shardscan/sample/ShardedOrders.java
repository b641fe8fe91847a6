package io.shardscan.sample;

import com.zaxxer.hikari.HikariDataSource;
import io.shardscan.annotation.ScanTask;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.Tables;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.jdbc.SqlDialect;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.context.annotation.Profile;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The sharded variant of the demo (profile {@code sharded}): task {@code order-sms-sharded} sends one SMS per
 * order of 16 tables {@code tb_order_00 … tb_order_15}, the first 8 in the application's DataSource and the
 * last 8 in a second one, {@code shardsB}; each SMS is recorded in {@code sms_outbox} of its order's database.
 * With two DataSources the application declares both, the first {@code @Primary}, as any Boot application
 * with two does.
 */
@Configuration(proxyBeanMethods = false)
@Profile("sharded")
public class ShardedOrders {

    private static final Logger log = LoggerFactory.getLogger(ShardedOrders.class);
    static final int TABLES = 16;

    /** The application's DataSource, from spring.datasource.*, primary: the demo's other tasks and Shardscan's own tables. */
    @Bean
    @Primary
    @ConfigurationProperties("spring.datasource.hikari")
    HikariDataSource dataSource(DataSourceProperties properties) {
        return properties
                .initializeDataSourceBuilder()
                .type(HikariDataSource.class)
                .build();
    }

    /** The second database, which holds tb_order_08 … tb_order_15. */
    @Bean
    DataSource shardsB(@Value("${sample.sharded.second-url}") String url) {
        return new DriverManagerDataSource(url);
    }

    @Bean
    Schema shardedSchema(
            DataSource dataSource,
            @Qualifier("shardsB") DataSource shardsB,
            @Value("${sample.sharded.orders-per-table}") int orders) {
        return new Schema(dataSource, shardsB, orders);
    }

    @Bean
    Sender shardedSender(DataSource dataSource, @Qualifier("shardsB") DataSource shardsB) {
        return new Sender(new JdbcTemplate(dataSource), new JdbcTemplate(shardsB));
    }

    /** Which database holds {@code table} (tb_order_NN). */
    static boolean inSecond(String table) {
        return Integer.parseInt(table.substring(table.lastIndexOf('_') + 1)) >= TABLES / 2;
    }

    /** Creates the 16 tables with their indexes and sms_outbox in both databases, and seeds orders into empty ones. */
    static final class Schema implements InitializingBean {

        private final JdbcTemplate first;
        private final JdbcTemplate second;
        private final int orders;

        Schema(DataSource first, DataSource second, int orders) {
            this.first = new JdbcTemplate(first);
            this.second = new JdbcTemplate(second);
            this.orders = orders;
        }

        @Override
        public void afterPropertiesSet() {
            List<Tables.Table> tables = new ArrayList<>();
            for (int i = 0; i < TABLES; i++) {
                tables.add(
                        new Tables.Table(String.format("tb_order_%02d", i), i < TABLES / 2 ? "dataSource" : "shardsB"));
            }
            // the task of application-sharded.yml as far as its indexes go
            TaskDefinition task = TaskDefinition.builder("order-sms-sharded")
                    .tables(tables)
                    .idColumn("order_id")
                    .shardKeyColumn("user_id")
                    .shards(4)
                    .build();
            for (JdbcTemplate jdbc : List.of(first, second)) {
                SqlDialect dialect = SqlDialect.detect(jdbc.getDataSource());
                jdbc.execute("CREATE TABLE IF NOT EXISTS sms_outbox (order_id BIGINT NOT NULL, node_id VARCHAR(128)"
                        + " NOT NULL, epoch BIGINT NOT NULL, sent_at " + dialect.timestampType() + " NOT NULL)");
            }
            Timestamp now = Timestamp.from(Instant.now());
            for (int i = 0; i < TABLES; i++) {
                String table = tables.get(i).name();
                JdbcTemplate jdbc = inSecond(table) ? second : first;
                SqlDialect dialect = SqlDialect.detect(jdbc.getDataSource());
                jdbc.execute("CREATE TABLE IF NOT EXISTS " + table + " (order_id BIGINT PRIMARY KEY, user_id BIGINT"
                        + " NOT NULL, phone VARCHAR(32), status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL"
                        + " DEFAULT 0, updated_at " + dialect.timestampType() + " NOT NULL, last_error VARCHAR(512))");
                for (String statement : SchemaDdl.scanIndexStatements(dialect, task.part(i))) {
                    try {
                        jdbc.execute(statement);
                    } catch (org.springframework.dao.DataAccessException e) {
                        log.debug("Skipped '{}': {}", statement, e.getMessage());
                    }
                }
                if (jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class) == 0) {
                    List<Object[]> rows = new ArrayList<>();
                    for (long id = 1; id <= orders; id++) {
                        // ids unique across the tables, as sharding middleware's distributed keys are
                        long orderId = i * 1_000_000L + id;
                        rows.add(new Object[] {orderId, orderId % 97, "+1555" + orderId, now});
                    }
                    jdbc.batchUpdate(
                            "INSERT INTO " + table + " (order_id, user_id, phone, updated_at) VALUES (?, ?, ?, ?)",
                            rows);
                }
            }
            log.info(
                    "order-sms-sharded: {} tables of {} orders, tb_order_00..07 in dataSource, 08..15 in shardsB",
                    TABLES,
                    orders);
        }
    }

    /** Task {@code order-sms-sharded}: one SMS per order, recorded in its order's database. */
    static final class Sender {

        private final JdbcTemplate first;
        private final JdbcTemplate second;

        Sender(JdbcTemplate first, JdbcTemplate second) {
            this.first = first;
            this.second = second;
        }

        /** An order of one of the tables. */
        public record Order(long orderId, long userId, String phone) {}

        @ScanTask("order-sms-sharded")
        public void send(Order order, ScanContext context) {
            (inSecond(context.table()) ? second : first)
                    .update(
                            "INSERT INTO sms_outbox (order_id, node_id, epoch, sent_at) VALUES (?, ?, ?, ?)",
                            order.orderId(),
                            context.node(),
                            context.epoch(),
                            Timestamp.from(Instant.now()));
        }

        private volatile String last = "";

        /** How far it got, in both databases, whenever it changed. */
        @Scheduled(
                initialDelayString = "${sample.progress-interval:5s}",
                fixedDelayString = "${sample.progress-interval:5s}")
        public void report() {
            String line = "sms_outbox=" + first.queryForObject("SELECT COUNT(*) FROM sms_outbox", Integer.class)
                    + " in dataSource, " + second.queryForObject("SELECT COUNT(*) FROM sms_outbox", Integer.class)
                    + " in shardsB";
            if (!line.equals(last)) {
                log.info("order-sms-sharded progress: {}", line);
                last = line;
            }
        }
    }
}
