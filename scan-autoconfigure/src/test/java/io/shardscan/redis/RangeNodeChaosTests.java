package io.shardscan.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.ChaosTests;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.NodeProcesses;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RangeNodeMain;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import io.shardscan.testsupport.UserTable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A range task over 1 000 000 ids with gaps (857 142 rows) on three node JVMs, one PostgreSQL and the
 * cursor in Redis, and over 300 000 ids on MariaDB with the cursor in the database: one node is killed with SIGKILL in the middle of the run, another frozen with SIGSTOP
 * past the stall timeout and then let go. Every id must run, ids run twice only from what the two
 * nodes handled since their ranges' last commits (the position commits once per commit interval: the
 * pages of one interval and the one in hand), and the run ends DONE exactly once with the right count.
 *
 * <p>Sized for a 2-core CI machine: the handler writes a page's ids in one statement and waits 25 ms per
 * page of 1 000, so the run takes about 20 s on six workers, long enough to kill and freeze nodes in its
 * middle, short enough for the whole test to stay under a minute and a half.
 */
@ChaosTests
class RangeNodeChaosTests {

    static final String TASK = "notify-users";
    static final int PAGE_SIZE = 1_000;
    static final Duration STALL_TIMEOUT = Duration.ofSeconds(3);
    static final Path LOGS = Path.of("target", "range-chaos");

    /** A database and cursor to run on, with an id space sized for its insert speed. */
    enum Setup {
        POSTGRES_REDIS_CURSOR(1_000_000, "redis", 25),
        // fewer ids and slower pages: MariaDB inserts the rows slower, and the run must last past the freeze
        MARIADB_JDBC_CURSOR(300_000, "jdbc", 60);

        final int ids;
        final String cursor;
        final int pageDelayMillis;

        Setup(int ids, String cursor, int pageDelayMillis) {
            this.ids = ids;
            this.cursor = cursor;
            this.pageDelayMillis = pageDelayMillis;
        }

        JdbcEndpoint endpoint() {
            return this == POSTGRES_REDIS_CURSOR
                    ? TestServers.postgresEndpoint("range_chaos")
                    : TestServers.mariadbEndpoint("range_chaos");
        }
    }

    UserTable users;
    NodeProcesses nodes;
    long inserted;

    void setUp(Setup setup) {
        DataSource dataSource = setup == Setup.POSTGRES_REDIS_CURSOR
                ? TestServers.postgresDatabase("range_chaos")
                : TestServers.mariadbDatabase("range_chaos");
        new OrderTable(dataSource).coordinationTables();
        users = new UserTable(dataSource).recreate();
        inserted = users.insertWithGaps(1, setup.ids, 1);
        users.jdbc().execute(setup == Setup.POSTGRES_REDIS_CURSOR ? "ANALYZE tb_user" : "ANALYZE TABLE tb_user");
        nodes = new NodeProcesses(TASK, setup.endpoint(), TestServers.redis(), LOGS.resolve(setup.name()));
    }

    private int unfinishedRangesOf(String node) {
        Integer ranges = users.jdbc()
                .queryForObject(
                        "SELECT COUNT(*) FROM scan_range WHERE task = ? AND owner = ? AND done = 0",
                        Integer.class,
                        TASK,
                        node);
        return ranges == null ? 0 : ranges;
    }

    @AfterEach
    void tearDown() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Setup.class)
    void aKilledAndAFrozenNodeLoseNoIdAndTheRunEndsDoneOnce(Setup setup) throws IOException {
        setUp(setup);
        for (String node : List.of("node-a", "node-b", "node-c")) {
            nodes.launch(
                    node,
                    RangeNodeMain.class,
                    List.of(
                            TASK,
                            "10000",
                            Integer.toString(PAGE_SIZE),
                            Long.toString(STALL_TIMEOUT.toMillis()),
                            Integer.toString(setup.pageDelayMillis),
                            setup.cursor));
        }
        nodes.awaitReady();
        await("a fifth of the ids")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> users.notifiedIds() >= inserted / 5);

        // both victims in a range: a node that had claimed none yet stopped with nothing to take over, and
        // the test waited for two takeovers where one could come (a run on three fast-starting nodes)
        await("node-b and node-c each in a range")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> unfinishedRangesOf("node-b") > 0 && unfinishedRangesOf("node-c") > 0);
        nodes.process("node-b").destroyForcibly(); // SIGKILL: no commit, no heartbeat, no goodbye
        long atKill = users.notifiedIds();
        nodes.suspend("node-c"); // SIGSTOP: heartbeat and position stand still, the node is not dead
        // what the two held when they stopped (a range may have ended between the wait and the signals)
        int held = unfinishedRangesOf("node-b") + unfinishedRangesOf("node-c");
        assertThat(held)
                .as("unfinished ranges of the killed and the frozen node")
                .isPositive();
        await("the killed and the frozen node's ranges taken over past the stall timeout")
                .atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> users.jdbc()
                                .queryForObject(
                                        "SELECT COUNT(*) FROM scan_range WHERE task = ? AND epoch > 1",
                                        Integer.class,
                                        TASK)
                        >= held);
        nodes.resume("node-c");
        assertThat(atKill).as("ids run when node-b was killed").isLessThan(inserted);

        await("the run DONE")
                .atMost(TestTime.scaled(Duration.ofSeconds(90)))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> "DONE"
                        .equals(users.jdbc()
                                .queryForObject(
                                        "SELECT run_state FROM scan_task WHERE task = ? AND run_id = 1",
                                        String.class,
                                        TASK)));

        assertThat(users.missed()).as("ids never run").isZero();
        // node-b and node-c held at most two ranges each (two workers), each with the pages handled since its
        // last commit uncommitted: a page takes at least the page delay, so fewer than one commit interval's
        // worth of them, and the one in hand
        Duration commitInterval =
                TaskDefinition.builder(TASK).table("tb_user").build().rounds().commitInterval();
        long pagesPerRange = commitInterval.toMillis() / setup.pageDelayMillis + 1;
        assertThat(users.duplicates()).as("ids run twice").isLessThanOrEqualTo(4L * pagesPerRange * PAGE_SIZE);
        assertThat(users.jdbc()
                        .queryForObject(
                                "SELECT SUM(processed) FROM scan_range WHERE task = ? AND run_id = 1",
                                Long.class,
                                TASK))
                .as("processed rows, each counted once")
                .isEqualTo(inserted);
        long doneLines = 0;
        for (String node : List.of("node-a", "node-b", "node-c")) {
            doneLines += nodes.logText(node)
                    .lines()
                    .filter(line -> line.contains(TASK + ": run 1 DONE"))
                    .count();
        }
        assertThat(doneLines).as("DONE logged by one node only").isEqualTo(1);
        assertThat(users.jdbc()
                        .queryForObject("SELECT COUNT(DISTINCT node) FROM notified WHERE epoch > 1", Integer.class))
                .as("ranges ran on under new epochs after the takeovers")
                .isPositive();
    }
}
