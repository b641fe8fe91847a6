package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import io.shardscan.jdbc.JdbcShardCoordinator;
import io.shardscan.jdbc.JdbcTaskStore;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.jdbc.SqlDialect;
import io.shardscan.testsupport.Engines;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.RecordingTaskStore;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.TestTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Rounds fetch on the node's fetch threads, a few for each task store (data source): a database that
 * stops answering holds its own store's fetch threads, never another store's, so the tasks on a
 * healthy database go on (issue 26 §4: fetching on a thread of its own, each round held one).
 */
class FetchThreadsTests {

    /** A round per shard at most: as many rounds of the stuck task at once as a store has fetch threads. */
    static final int SHARDS = NodeThreads.FETCH_THREADS;

    @RegisterExtension
    final Engines engines = new Engines();

    final DataSource stuckDatabase = TestServers.h2("fetch_threads_stuck");
    final DataSource healthyDatabase = TestServers.h2("fetch_threads_healthy");
    final CountDownLatch answersAgain = new CountDownLatch(1);

    @AfterEach
    void answerAgain() {
        answersAgain.countDown();
    }

    @Test
    void aDatabaseThatStopsAnsweringHoldsNoneOfAnotherDatabasesFetchThreads() {
        table(stuckDatabase, "stuck", 400);
        table(healthyDatabase, "healthy", 400);
        RecordingTaskStore stuck =
                new RecordingTaskStore(new JdbcTaskStore(stuckDatabase), "order_id").hangFetches(answersAgain);
        TaskHandler.PerRow done = (row, ctx) -> Outcome.done();
        engines.start(new ScanEngine(
                List.of(
                        new ScanEngine.ScanTask(task("stuck", SHARDS), done).withStore(stuck),
                        new ScanEngine.ScanTask(task("healthy", 2), done)),
                new JdbcTaskStore(healthyDatabase),
                new JdbcShardCoordinator(healthyDatabase),
                Engines.settings("node-a", 200),
                ScanClock.system(),
                ScanListener.NONE));

        await().atMost(TestTime.scaled(Duration.ofSeconds(30)))
                .until(() -> stuck.hangingFetches() == NodeThreads.FETCH_THREADS);
        await().atMost(TestTime.scaled(Duration.ofSeconds(60)))
                .until(() -> pending(healthyDatabase, "tb_healthy") == 0);
        assertThat(stuck.hangingFetches())
                .as("fetches of the stuck database waiting, each on a fetch thread of its store")
                .isEqualTo(NodeThreads.FETCH_THREADS);
        assertThat(pending(stuckDatabase, "tb_stuck")).isEqualTo(400);
    }

    private static TaskDefinition task(String name, int workers) {
        return TaskDefinition.builder(name)
                .table("tb_" + name)
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .pageSize(10)
                .workers(workers)
                .build();
    }

    /** The task's table in {@code dataSource}, with {@code rows} pending rows, indexed as Shardscan says. */
    private static void table(DataSource dataSource, String task, int rows) {
        new OrderTable(dataSource).coordinationTables();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String table = "tb_" + task;
        jdbc.execute("DROP TABLE IF EXISTS " + table);
        jdbc.execute("CREATE TABLE " + table + " (order_id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                + " updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, last_error VARCHAR(512))");
        SchemaDdl.scanIndexStatements(SqlDialect.detect(dataSource), task(task, 1))
                .forEach(jdbc::execute);
        jdbc.update("INSERT INTO " + table + " (order_id, user_id) SELECT X, MOD(X, 97) FROM SYSTEM_RANGE(1, ?)", rows);
    }

    private static int pending(DataSource dataSource, String table) {
        return new JdbcTemplate(dataSource)
                .queryForObject("SELECT COUNT(*) FROM " + table + " WHERE status = 0", Integer.class);
    }
}
