package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The check that a shard column gives pending rows the task's shards, on H2 and MariaDB: what each
 * database prints back as the expression, and the probe of the rows when it is not one Shardscan
 * writes.
 */
@ServerTests
class ShardColumnCheckTests {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    // by name: JUnit closes a pool passed as an argument after the test
    static DataSource database(String name) {
        return name.equals("h2") ? TestServers.h2("shard_column") : TestServers.mariadbDatabase("shard_column");
    }

    static TaskDefinition task(int shards) {
        return TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(shards)
                .build();
    }

    /** The expression {@link SchemaDdl#shardOf} writes, and how H2, MariaDB and MySQL print it back. */
    @Test
    void readsTheModulusOfEachDatabasesSpelling() {
        assertThat(ShardColumnCheck.modulus(SchemaDdl.shardOf("user_id", 64), "user_id"))
                .isEqualTo(new ShardColumnCheck.Modulus(64, false));
        assertThat(ShardColumnCheck.modulus("MOD(MOD(\"USER_ID\", 64) + 64, 64)", "USER_ID"))
                .isEqualTo(new ShardColumnCheck.Modulus(64, false));
        assertThat(ShardColumnCheck.modulus("(`user_id` MOD 16 + 16) MOD 16", "user_id"))
                .isEqualTo(new ShardColumnCheck.Modulus(16, false));
        assertThat(ShardColumnCheck.modulus("(((`user_id` % 16) + 16) % 16)", "user_id"))
                .isEqualTo(new ShardColumnCheck.Modulus(16, false));
        assertThat(ShardColumnCheck.modulus("`user_id` MOD 8", "user_id"))
                .isEqualTo(new ShardColumnCheck.Modulus(8, true));
        assertThat(ShardColumnCheck.modulus("MOD(\"USER_ID\", 8)", "user_id"))
                .isEqualTo(new ShardColumnCheck.Modulus(8, true));
        assertThat(ShardColumnCheck.modulus("MOD(MOD(user_id, 64) + 16, 64)", "user_id"))
                .isNull();
        assertThat(ShardColumnCheck.modulus("MOD(MOD(user_id, 64) + 64, 64)", "store_id"))
                .isNull();
        assertThat(ShardColumnCheck.modulus("CRC32(user_id) MOD 64", "user_id")).isNull();
    }

    /** Each database's own expression for the task's shards passes; one of fewer shards is warned. */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "mariadb"})
    void theColumnOfTheTasksShardsPassesAndOneOfFewerIsWarned(String database) {
        DataSource dataSource = database(database);
        new OrderTable(dataSource).recreate(16, true).insert(40, 1000, T0);
        SchemaReport same = new JdbcTaskStore(dataSource).inspect(task(16));
        assertThat(same.problems()).isEmpty();
        assertThat(same.warnings()).isEmpty();
        SchemaReport more = new JdbcTaskStore(dataSource).inspect(task(64));
        assertThat(more.problems()).isEmpty();
        assertThat(more.warnings())
                .singleElement()
                .asString()
                .contains("which gives rows the shards 0..15 only, but scan.tasks.orders.shards is 64");
    }

    /**
     * A shard column the application fills itself (no generation expression): the pending rows are
     * probed; one outside the task's shards fails, naming the fixes; once none is, it passes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2", "mariadb"})
    void aColumnWithoutExpressionIsProbedForRowsOutsideTheShards(String database) {
        DataSource dataSource = database(database);
        OrderTable table = new OrderTable(dataSource).recreate(4, false).insert(40, 1000, T0);
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN scan_shard INT");
        table.jdbc().execute("UPDATE tb_order SET scan_shard = MOD(user_id, 8)");
        assertThat(new JdbcTaskStore(dataSource).inspect(task(4)).problems())
                .singleElement()
                .asString()
                .contains("pending rows of table tb_order have a scan_shard of 4 or more, outside the shards 0..3 of"
                        + " scan.tasks.orders.shards=4 (the column's expression, which could not be read, is not")
                .contains("they are never fetched")
                .contains("Set scan.tasks.orders.shards to the column's modulus, or give the column the task's 4"
                        + " shards:\n  ALTER TABLE tb_order ");
        JdbcTaskStore store = new JdbcTaskStore(dataSource);
        store.inspect(task(4));
        assertThat(store.admin().countBacklog(task(4)).outsideShards())
                .as("the backlog counts the rows outside the shards, 20 of the 40")
                .isEqualTo(20);
        table.jdbc().execute("UPDATE tb_order SET status = 1 WHERE scan_shard >= 4");
        assertThat(new JdbcTaskStore(dataSource).inspect(task(4)).problems()).isEmpty();
        assertThat(store.admin().countBacklog(task(4)).outsideShards()).isZero();
    }
}
