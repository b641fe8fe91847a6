package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.spi.RangeSnapshot;
import io.shardscan.core.spi.RangeStores;
import io.shardscan.core.spi.RangeTable;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.core.task.Tier;
import io.shardscan.jdbc.JdbcRangeCursor;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.UserTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The open tail of a following range task, with the interleavings forced: rows committed between a
 * page and the read of the table's highest id, and a row whose transaction took a lower id and
 * committed after higher ids ran. The follow grace is an hour on a settable clock, so nothing settles
 * until the test moves the clock. Run on each database through a subclass.
 */
public abstract class FollowTailContractTests {

    private static final Duration GRACE = Duration.ofHours(1);

    protected abstract DataSource createDataSource();

    @RegisterExtension
    final Engines engines = new Engines();

    @RegisterExtension
    final CapturedLog scanLog = new CapturedLog("io.shardscan.core.RangeScan");

    private final SettableScanClock clock = new SettableScanClock(Instant.parse("2025-01-01T00:00:00Z"));
    private DataSource dataSource;
    private UserTable users;
    private String name;

    @BeforeEach
    void setUp() {
        dataSource = createDataSource();
        new OrderTable(dataSource).coordinationTables();
        users = new UserTable(dataSource).recreate();
        name = "follow-" + System.nanoTime();
    }

    private ScanEngine follow(RangeTable table) {
        return follow(table, GRACE);
    }

    private ScanEngine follow(RangeTable table, Duration grace) {
        RangeTask task = new RangeTask(
                TaskDefinition.builder(name)
                        .table("tb_user")
                        .idColumn("user_id")
                        .pageSize(100)
                        .workers(2)
                        .commitInterval(Duration.ofMillis(100))
                        .tiers(List.of(new Tier(0, 2, Duration.ofMillis(100))))
                        .build(),
                100,
                Duration.ofMinutes(5),
                RunMode.FOLLOW,
                grace);
        RangeStores jdbc = Engines.rangeStores(dataSource, new JdbcRangeCursor(dataSource, Engines.STATEMENT_TIMEOUT));
        RangeStores stores = new RangeStores(jdbc.runs(), jdbc.cursor(), jdbc.ledger(), table, jdbc.failures());
        TaskHandler.PerRow record = (row, ctx) -> {
            users.jdbc().update("INSERT INTO notified (user_id, node, epoch) VALUES (?, ?, ?)", row.id(), "a", 1);
            return null;
        };
        return engines.startRange("node-a", dataSource, stores, new RangeJob(task, record), clock);
    }

    /**
     * The first page of the tail range (ids 2-101) reads 42 rows; right after it returns, and before
     * anything else reads the table, 102 rows commit, up to id 169, past the range's end. Each runs, once; the percent reaches
     * 100 only with every row run; the range counts as done only once the grace passed.
     */
    @Test
    void rowsCommittedRightAfterAPageAllRunAndProgressIsHonest() {
        long first = users.insertWithGaps(1, 50, 1);
        AtomicBoolean inserted = new AtomicBoolean();
        long[] more = new long[1];
        RangeTable jdbc = new io.shardscan.jdbc.JdbcRangeTable(dataSource, Engines.STATEMENT_TIMEOUT);
        ScanEngine a = follow(afterFirstPage(jdbc, () -> {
            more[0] = users.insertWithGaps(51, 120, 1);
            inserted.set(true);
        }));
        await().untilTrue(inserted);
        long all = first + more[0];
        assertThat(users.users()).isEqualTo(all);
        long span = users.jdbc().queryForObject("SELECT MAX(user_id) - MIN(user_id) + 1 FROM tb_user", Long.class);

        RangeSnapshot full =
                await().until(() -> a.rangeTask(name).snapshot(), s -> s.percent() == 100 && s.span() == span);
        assertThat(users.missed())
                .as("rows not run when the percent reached 100")
                .isZero();
        assertThat(full.progress().processed()).isEqualTo(all);
        assertThat(users.duplicates()).isZero();
        assertThat(full.progress().rangesDone())
                .as("the first range's ids are not settled within the grace")
                .isZero();

        clock.elapse(GRACE);
        RangeSnapshot settled = await().until(
                        () -> a.rangeTask(name).snapshot(), s -> s.progress().rangesDone() == 1);
        assertThat(settled.progress().processed()).isEqualTo(all);
        assertThat(users.duplicates())
                .as("reading the holes again ran nothing twice")
                .isZero();
        assertThat(users.missed()).isZero();
    }

    /**
     * The same race with no grace: what the table's highest id said before the page decides, so the
     * rows committed after the page run and the first range is done as soon as the page after them
     * comes back short.
     */
    @Test
    void rowsCommittedRightAfterAPageRunWithoutAGraceToo() {
        long first = users.insertWithGaps(1, 50, 1);
        AtomicBoolean inserted = new AtomicBoolean();
        long[] more = new long[1];
        ScanEngine a = follow(
                afterFirstPage(new io.shardscan.jdbc.JdbcRangeTable(dataSource, Engines.STATEMENT_TIMEOUT), () -> {
                    more[0] = users.insertWithGaps(51, 120, 1);
                    inserted.set(true);
                }),
                Duration.ZERO);
        await().untilTrue(inserted);
        long all = first + more[0];

        RangeSnapshot done = await().until(
                        () -> a.rangeTask(name).snapshot(), s -> s.progress().rangesDone() == 1);
        // the first range covers the 100 ids from the lowest; the second (ids past it) runs on the other
        // worker meanwhile and may not have run all of its rows yet (a busy machine: 12 of them)
        long firstRangeEnd = users.jdbc().queryForObject("SELECT MIN(user_id) FROM tb_user", Long.class) + 100 - 1;
        assertThat(users.missed(firstRangeEnd))
                .as("rows of the first range not run when it was done")
                .isZero();
        await().until(() -> a.rangeTask(name).snapshot().progress().processed() == all);
        assertThat(users.missed()).isZero();
        assertThat(users.duplicates()).isZero();
        assertThat(done.run().done()).isFalse();
    }

    /**
     * In the tail range (ids 2-101), a transaction takes id 60 and commits only after ids 61 to 80
     * committed and ran: within the grace,
     * the row still runs, once, and the log names the cause and the setting.
     */
    @Test
    void aLowerIdThatCommitsAfterHigherIdsRanStillRunsWithinTheGrace() throws Exception {
        long first = users.insertWithGaps(1, 50, 1);
        ScanEngine a = follow(new io.shardscan.jdbc.JdbcRangeTable(dataSource, Engines.STATEMENT_TIMEOUT));
        await().until(() -> users.notifiedIds() == first);
        try (Connection late = dataSource.getConnection()) {
            late.setAutoCommit(false);
            try (PreparedStatement insert =
                    late.prepareStatement("INSERT INTO tb_user (user_id, name) VALUES (60, 'user-60')")) {
                insert.executeUpdate();
            }
            for (long id = 61; id <= 80; id++) {
                users.insert(id);
            }
            await().until(() -> users.notifiedIds() == first + 20);
            late.commit();
        }
        assertThat(notified(60)).as("id 60 committed after 61 to 80 ran").isZero();

        clock.elapse(GRACE);
        await().until(() -> notified(60) == 1);
        assertThat(users.missed()).isZero();
        assertThat(users.duplicates()).isZero();
        assertThat(scanLog.messages(Level.INFO)).anySatisfy(m -> assertThat(m)
                .contains(name + ": range 2-101 runs 1 rows (first id 60) that committed after a higher id")
                .contains("scan.tasks." + name + ".follow-grace (PT1H)")
                .contains("raise follow-grace"));
        await().until(() -> a.rangeTask(name).snapshot().progress().processed() == first + 21);
    }

    private int notified(long id) {
        return users.jdbc().queryForObject("SELECT COUNT(*) FROM notified WHERE user_id = ?", Integer.class, id);
    }

    /** {@code table}, with {@code afterPage} run once, right after the first page statement returned. */
    private static RangeTable afterFirstPage(RangeTable table, Runnable afterPage) {
        AtomicBoolean fired = new AtomicBoolean();
        return new RangeTable() {
            @Override
            public List<Row> page(RangeTask task, long after, long last, int limit) {
                List<Row> rows = table.page(task, after, last, limit);
                if (fired.compareAndSet(false, true)) {
                    afterPage.run();
                }
                return rows;
            }

            @Override
            public List<Row> rows(RangeTask task, List<Long> ids) {
                return table.rows(task, ids);
            }

            @Override
            public long minId(RangeTask task) {
                return table.minId(task);
            }

            @Override
            public long maxId(RangeTask task) {
                return table.maxId(task);
            }

            @Override
            public SchemaReport inspect(RangeTask task) {
                return table.inspect(task);
            }
        };
    }
}
