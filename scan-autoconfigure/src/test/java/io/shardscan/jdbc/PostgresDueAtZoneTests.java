package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.ZoneId;
import java.util.TimeZone;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A zone-less due-at column on a PostgreSQL database whose default zone is not the JVM's: PgJDBC
 * sets the session's zone to the JVM's, so rows written by psql in the database's zone would run
 * hours off. Startup warns, naming both zones and the fixes; it stays quiet for timestamptz and
 * when the zones agree.
 */
@ServerTests
class PostgresDueAtZoneTests {

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog schemaLog = new CapturedLog("io.shardscan.core.SchemaCheck");

    final DataSource dataSource = TestServers.postgresDatabase("due_zone");
    final String jvmZone = ZoneId.systemDefault().getId();
    // a zone that is not the JVM's, with offsets unlike it all year
    final String serverZone =
            ZoneId.of("Asia/Tokyo").getRules().equals(ZoneId.systemDefault().getRules())
                    ? "America/New_York"
                    : "Asia/Tokyo";
    OrderTable table;

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource).recreate(4, true).coordinationTables();
        table.jdbc().execute("ALTER DATABASE due_zone SET timezone = '" + serverZone + "'");
    }

    TaskDefinition task() {
        return TaskDefinition.builder("close-unpaid")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(4)
                .dueAtColumn("due_at")
                .build();
    }

    @Test
    void aZonelessDueAtColumnInADatabaseOfAnotherZoneWarnsAtStartup() {
        table.withDueAt(4);
        ScanEngine engine = engines.start("node-a", dataSource, task(), (TaskHandler.PerRow) (row, ctx) -> null);
        assertThat(engine.task("close-unpaid").ownedShards()).isNotNull();
        assertThat(schemaLog.warnings())
                .filteredOn(w -> w.contains("without time zone"))
                .singleElement()
                .asString()
                .startsWith("scan.tasks.close-unpaid: due-at-column due_at is a TIMESTAMP without time zone")
                .contains("this JVM's zone (" + jvmZone + ") is not the database's (" + serverZone + ")")
                .contains("Make the column timestamptz")
                .contains("-Duser.timezone=" + serverZone)
                .contains("write the column from this application only");
    }

    @Test
    void timestamptzOrAJvmInTheDatabasesZoneDoesNotWarn() {
        table.withZonedDueAt(4);
        assertThat(new JdbcTaskStore(dataSource).inspect(task()).warnings()).isEmpty();
        table.recreate(4, true).withDueAt(4);
        assertThat(new JdbcTaskStore(dataSource).inspect(task()).warnings())
                .singleElement()
                .asString()
                .contains(serverZone);
        TimeZone jvm = TimeZone.getDefault();
        try {
            TimeZone.setDefault(TimeZone.getTimeZone(serverZone));
            assertThat(new JdbcTaskStore(dataSource).inspect(task()).warnings()).isEmpty();
        } finally {
            TimeZone.setDefault(jvm);
        }
    }
}
