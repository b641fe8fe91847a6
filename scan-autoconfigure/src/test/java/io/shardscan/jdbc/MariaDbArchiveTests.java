package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.JvmZoneNotTheServers;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract on MariaDB, in a JVM whose zone is not the server's, so that the cutoff test checks
 * that the cutoff reads the database's clock in UTC, as the engine stamps the rows, whatever the JVM's zone.
 */
@ServerTests
class MariaDbArchiveTests extends ArchiveContractTests {

    @RegisterExtension
    static final JvmZoneNotTheServers zone = new JvmZoneNotTheServers(() -> TestServers.mariadbDatabase("archive"));

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("archive");
    }

    /**
     * The cutoff and the stamps are UTC: when the JVM's offset changes (a daylight saving switch;
     * three hours here, beyond the rows' two), a done row stamped two hours ago still goes and one
     * stamped just now stays.
     */
    @Test
    void aChangeOfTheJvmsOffsetDoesNotMoveTheCutoff() {
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        TaskDefinition task = task("tb_order_archive", false, 500, Duration.ofHours(1));
        long epoch = store.fence(task, 2, "node-a");
        assertThat(store.archive(task, 2, epoch)).isEqualTo(2);
        TimeZone before = TimeZone.getDefault();
        int offset = before.toZoneId().getRules().getOffset(Instant.now()).getTotalSeconds();
        TimeZone.setDefault(TimeZone.getTimeZone(ZoneOffset.ofTotalSeconds(offset + 3 * 3600)));
        try {
            Instant now = Instant.now();
            table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id IN (10, 14)");
            setUpdatedAt(now.minus(Duration.ofHours(2)), 10);
            setUpdatedAt(now, 14);
            assertThat(store.archive(task, 2, epoch)).isEqualTo(1);
            assertThat(ids("tb_order_archive")).containsExactly(2L, 6L, 10L);
        } finally {
            TimeZone.setDefault(before);
        }
    }

    /**
     * MariaDB's plan of the batch's select on 40 000 rows, most of them done long ago: a range
     * over the index on (status, scan_shard, updated_at), never the whole table.
     */
    @Test
    void aBatchReadsARangeOfTheIndexOverFinishedRows() {
        table.jdbc().execute("DELETE FROM tb_order");
        table.insert(40_000, 1000, OLD);
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id % 10 <> 0");
        table.jdbc().update("UPDATE tb_order SET updated_at = ? WHERE order_id % 7 = 0", OrderTable.utc(Instant.now()));
        table.jdbc().execute("ANALYZE TABLE tb_order");
        for (boolean includeDead : List.of(false, true)) {
            TaskDefinition task = task("tb_order_archive", includeDead, 500);
            String select = new JdbcTaskStore(dataSource()).archiveSql(task).select();
            List<Map<String, Object>> plan = table.jdbc().queryForList("EXPLAIN " + select, 3, 500);
            assertThat(plan).as(plan.toString()).singleElement().satisfies(row -> {
                assertThat(row.get("key")).isEqualTo("tb_order_finished_idx");
                assertThat(row.get("type")).isEqualTo("range");
            });
        }
    }
}
