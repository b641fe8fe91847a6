package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.JvmZoneNotTheServers;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.TimeZone;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract on MariaDB, in a JVM whose zone is not the server's, so that every due-at test also
 * checks that the due bound reads the database's clock in the JVM's zone.
 */
@ServerTests
class MariaDbTaskStoreTests extends TaskStoreContractTests {

    @RegisterExtension
    static final JvmZoneNotTheServers zone = new JvmZoneNotTheServers(() -> TestServers.mariadbDatabase("task_store"));

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("task_store");
    }

    /**
     * The due bound holds the JVM's offset as a literal: when the offset changes (a daylight saving
     * switch; three hours here, well beyond the rows' hour), the statements are built again, so a
     * row written in the new offset an hour ago is due and one due in an hour is not.
     */
    @Test
    void aChangeOfTheJvmsOffsetBuildsTheDueBoundAgain() {
        table.withDueAt(SHARDS);
        TaskDefinition delayed = delayed(Duration.ZERO);
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        assertThat(store.inspect(delayed).indexPresent()).isTrue();
        assertThat(store.fetch(delayed, fresh(1, Long.MIN_VALUE, 100))).isEmpty();
        TimeZone before = TimeZone.getDefault();
        int offset = before.toZoneId().getRules().getOffset(Instant.now()).getTotalSeconds();
        TimeZone.setDefault(TimeZone.getTimeZone(ZoneOffset.ofTotalSeconds(offset + 3 * 3600)));
        try {
            Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
            setDue(now.minus(Duration.ofHours(1)), 1);
            setDue(now.plus(Duration.ofHours(1)), 5);
            assertThat(store.fetch(delayed, fresh(1, Long.MIN_VALUE, 100)))
                    .extracting(Row::id)
                    .containsExactly(1L);
        } finally {
            TimeZone.setDefault(before);
        }
    }

    /**
     * MariaDB's plans over the index on (status, scan_shard, retry_count, order_id): the fresh tier
     * reads the shard's fresh rows in id order, without a sort, as a range over all four key parts
     * (key length 19) or as a lookup of the first three (11), between which the optimizer's estimates
     * choose (a busy machine's run chose the lookup once with the statistics pinned); a tier of failed rows
     * also reads through the retry count, so it expects the one failed row, not the shard's 1 000
     * pending ones that an index without retry_count would make it read.
     */
    @Test
    void freshRowsComeInIndexOrderAndFailedOnesThroughTheirRetryRange() throws SQLException {
        table.recreate(SHARDS, true);
        // statistics of every page, and only from the ANALYZE below: InnoDB's background recalculation
        // after the insert samples 20 random pages, and when it lands after the ANALYZE (a busy machine
        // delays it) its estimates made the plan read only three key parts
        table.jdbc().execute("ALTER TABLE tb_order STATS_AUTO_RECALC=0, STATS_SAMPLE_PAGES=1000");
        table.insert(4000, 1000, T0);
        table.jdbc().execute("ANALYZE TABLE tb_order");
        assertThat(explainFetch(0, 0, null))
                .containsPattern("tb_order_scan_idx (19|11) ")
                .doesNotContain("filesort");
        assertThat(explainFetch(1, 5, null)).contains("tb_order_scan_idx 19 null 1 ");
    }

    /**
     * 40 000 rows, all done but one: every branch of the idle probe of two tiers (one per shard and
     * tier) reads the pending-row index on (status, scan_shard, retry_count, order_id), none the
     * table. The fresh tier's branches do not sort; a branch of a range of retry counts sorts the
     * shard's pending rows of that range it read through the index, as the tier's fetch does.
     */
    @Test
    void theIdleProbeReadsEachShardThroughThePendingIndex() throws SQLException {
        table.recreate(SHARDS, true).insert(40_000, 1000, T0);
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id <> 5");
        table.jdbc().execute("ANALYZE TABLE tb_order");
        String plan = explainProbe("EXPLAIN ", null);
        java.util.List<String> branches =
                plan.lines().filter(line -> line.contains(" tb_order ")).toList();
        assertThat(branches).as(plan).hasSize(2 * SHARDS);
        assertThat(branches).as(plan).allSatisfy(line -> assertThat(line).contains("tb_order_scan_idx"));
        // the fresh tier's branches come first of each shard's two (ids 1, 3, 5, 7)
        assertThat(java.util.stream.IntStream.range(0, SHARDS).mapToObj(shard -> branches.get(2 * shard)))
                .as(plan)
                .allSatisfy(line -> assertThat(line).doesNotContain("filesort"));
    }

    /**
     * A zone-less due-at column (DATETIME) on a server whose global zone is not the JVM's: the
     * inspection warns, naming both zones; the global zone is restored after.
     */
    @Test
    void aZonelessDueAtColumnInADatabaseOfAnotherZoneIsWarned() {
        table.withDueAt(SHARDS);
        String jvm = java.time.ZoneId.systemDefault().getId();
        String global = table.jdbc().queryForObject("SELECT @@global.time_zone", String.class);
        String other = java.time.ZoneId.systemDefault()
                                .getRules()
                                .getOffset(java.time.Instant.now())
                                .getTotalSeconds()
                        == 9 * 3600
                ? "-05:00"
                : "+09:00";
        table.jdbc().execute("SET GLOBAL time_zone = '" + other + "'");
        try {
            assertThat(new JdbcTaskStore(dataSource())
                            .inspect(delayed(Duration.ZERO))
                            .warnings())
                    .singleElement()
                    .asString()
                    .contains("due-at-column due_at is a DATETIME without time zone")
                    .contains("this JVM's zone (" + jvm + ") is not the database's (" + other + ")")
                    .contains("the due check reads the database's clock in " + jvm)
                    .contains("rows that the database's clock (DEFAULT CURRENT_TIMESTAMP, NOW()), triggers or other"
                            + " services write in " + other + " run up to");
        } finally {
            table.jdbc().execute("SET GLOBAL time_zone = '" + global + "'");
        }
        assertThat(new JdbcTaskStore(dataSource())
                        .inspect(delayed(Duration.ZERO))
                        .warnings())
                .as("the global zone restored")
                .noneMatch(w -> w.contains("(" + other + ")"));
    }

    /**
     * Shard 1 holds 1 000 pending rows, of which only 10 are due. MariaDB's {@code ANALYZE} counts
     * the index entries the fetch really read ({@code r_rows}): the 10 due ones, in index order.
     */
    @Test
    void aDelayedFetchReadsOnlyDueRowsThroughTheDueIndex() throws SQLException {
        table.recreate(SHARDS, true).withDueAt(SHARDS).insert(4000, 1000, T0);
        table.jdbc().update("UPDATE tb_order SET due_at = TIMESTAMPADD(DAY, 1, NOW(3))");
        table.jdbc().update("UPDATE tb_order SET due_at = TIMESTAMPADD(HOUR, -1, NOW(3)) WHERE order_id <= 40");
        table.jdbc().execute("ANALYZE TABLE tb_order");
        String plan = explainDelayedFetch(delayed(Duration.ofMinutes(15)), "ANALYZE ", null);
        assertThat(plan).contains(" tb_order_due_idx ").contains(" 10.00 ").doesNotContain("filesort");
    }
}
