package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.shardscan.core.Backlog;
import io.shardscan.core.spi.BacklogCounts;
import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.IndexCheck;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowColumns;
import io.shardscan.core.task.RowKey;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.testsupport.CountingDataSource;
import io.shardscan.testsupport.OrderTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link TaskStore} must do; one small subclass per database. */
abstract class TaskStoreContractTests {

    static final int SHARDS = 4;
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    OrderTable table;
    TaskStore store;
    TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .shardKeyColumn("user_id")
            .shards(SHARDS)
            .build();

    abstract DataSource dataSource();

    @BeforeEach
    void setUp() {
        table = new OrderTable(dataSource()).recreate(SHARDS, true).coordinationTables();
        table.insert(40, 1000, T0);
        store = new JdbcTaskStore(dataSource());
        assertThat(store.inspect(task).indexPresent()).isTrue();
    }

    @Test
    void fetchesOnlyPendingRowsOfTheShardInIdOrder() {
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id IN (1, 5)");
        List<Row> rows = store.fetch(task, fresh(1, Long.MIN_VALUE, 100));
        assertThat(rows).extracting(Row::id).containsExactly(9L, 13L, 17L, 21L, 25L, 29L, 33L, 37L);
        assertThat(rows).allSatisfy(r -> assertThat(task.shardOf(r.shardKey())).isEqualTo(1));
        assertThat(rows.get(0).columns())
                .containsEntry("phone", "+15559")
                .as("updated_at, zone-less, read as the UTC the engine stamps it in")
                .containsEntry("updated_at", Timestamp.from(T0))
                .as("a NULL column is there, with a null value")
                .containsEntry("last_error", null);
        assertThatThrownBy(() -> rows.get(0).columns().put("phone", "changed"))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void fetchesOnlyTheColumnsTheHandlerNamesPlusThoseTheEngineReads() {
        TaskDefinition narrow = task.withRowColumns(RowColumns.matching(List.of("phone", "updatedAt")));

        List<Row> rows = store.fetch(narrow, fresh(1, Long.MIN_VALUE, 100));

        assertThat(rows).extracting(Row::id).startsWith(1L, 5L, 9L).hasSize(10);
        assertThat(rows.get(0).layout().names())
                .containsExactly("order_id", "user_id", "phone", "retry_count", "updated_at");
        assertThat(rows.get(0))
                .as("the engine's own columns read from the page's values")
                .extracting(Row::id, Row::shardKey, Row::retries)
                .containsExactly(1L, 1L, 0);
        assertThat(rows.get(0).columns())
                .containsEntry("phone", "+15551")
                .containsEntry("updated_at", Timestamp.from(T0));
        assertThat(store.fetch(narrow, fresh(1, 1, 1)).get(0).layout())
                .as("pages with the same columns share one layout")
                .isSameAs(rows.get(0).layout());
        assertThat(store.fetch(task, fresh(1, Long.MIN_VALUE, 1))
                        .get(0)
                        .layout()
                        .names())
                .as("a handler taking the raw row reads every column")
                .contains("order_id", "phone", "status", "last_error");
    }

    @Test
    void leavesOutTheRowsOfExcludedEndpointsButKeepsThoseWithoutOne() {
        // orders 1..40 of users 1..40: shard 1 holds 1, 5, 9, ..., 37; their store is the user mod 3
        table.withStores(3);
        table.jdbc().update("UPDATE tb_order SET store_id = NULL WHERE order_id = 13");
        TaskDefinition stores = storesTask();
        assertThat(store.inspect(stores).problems()).isEmpty();
        FetchRequest all = fresh(1, Long.MIN_VALUE, 100);
        assertThat(store.fetch(stores, all)).hasSize(10);
        FetchRequest withoutTwo = new FetchRequest(
                all.shard(),
                all.minRetries(),
                all.maxRetries(),
                null,
                null,
                all.afterId(),
                all.limit(),
                List.of("1", "2"));
        // left: store 0 (9, 21, 33) and the row without a store (13)
        assertThat(store.fetch(stores, withoutTwo)).extracting(Row::id).containsExactly(9L, 13L, 21L, 33L);
        // a ban a numeric column cannot hold (left from when the endpoint column held text) matches no
        // row: the fetch leaves it out instead of failing every round
        assertThat(store.fetch(stores, withoutTwo.withExcludedEndpoints(List.of("s-2", "1"))))
                .extracting(Row::id)
                .containsExactly(5L, 9L, 13L, 17L, 21L, 29L, 33L);

        // a text endpoint column is bound as text
        table.jdbc().execute("ALTER TABLE tb_order ADD COLUMN store_code VARCHAR(16)");
        table.jdbc().update("UPDATE tb_order SET store_code = CONCAT('s-', CAST(store_id AS VARCHAR(8)))");
        TaskDefinition codes = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .endpoints(io.shardscan.core.task.EndpointRules.of("store_code"))
                .build();
        assertThat(store.inspect(codes).problems()).isEmpty();
        assertThat(store.fetch(
                        codes, new FetchRequest(1, 0, 0, null, null, Long.MIN_VALUE, 100, List.of("s-1", "s-2"))))
                .extracting(Row::id)
                .containsExactly(9L, 13L, 21L, 33L);
    }

    /**
     * Orders -8..-1 of users -8..-1: the engine puts user -5 in shard 3 (floorMod), where a plain
     * {@code MOD(-5, 4)} would say -1, a shard no node fetches, and the row would never run.
     */
    @Test
    void rowsWithNegativeShardKeysAreFetchedByTheShardTheEngineGivesThemAndWrittenBack() {
        table.insert(-8, 8, 1000, T0);
        List<Long> fetched = new java.util.ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            int expected = shard;
            List<Row> rows = store.fetch(task, fresh(shard, Long.MIN_VALUE, 100));
            assertThat(rows)
                    .allSatisfy(r -> assertThat(task.shardOf(r.shardKey())).isEqualTo(expected));
            rows.forEach(r -> fetched.add(r.id()));
        }
        assertThat(fetched)
                .as("every pending row, in one shard each")
                .hasSize(48)
                .doesNotHaveDuplicates();
        assertThat(store.fetch(task, fresh(3, Long.MIN_VALUE, 100)))
                .extracting(Row::id)
                .startsWith(-5L, -1L, 3L);
        long epoch = store.fence(task, 3, "node-a");
        assertThat(store.writeBack(task, new WriteBack(3, epoch, T0, List.of(-5L, -1L), List.of(), List.of())))
                .isTrue();
        assertThat(table.count("order_id IN (-5, -1) AND status = 1")).isEqualTo(2);
    }

    /**
     * A table set up by an earlier build, keyed by the plain {@code MOD(user_id, 4)}: the inspection
     * warns and names the statements that replace it; once they (and the index check's) ran, the
     * rows of negative users are fetched in their shard.
     */
    @Test
    void aTableKeyedByThePlainModIsWarnedWithTheStatementsThatReplaceIt() {
        table.recreateKeyedByPlainMod(SHARDS).insert(-8, 16, 1000, T0);
        SchemaReport old = new JdbcTaskStore(dataSource()).inspect(task);
        assertThat(old.warnings())
                .singleElement()
                .asString()
                .contains("table tb_order gives a row its shard by a plain MOD(user_id, 4)")
                .contains("such rows never run. Run:\n  ");
        String warning = old.warnings().get(0);
        String statements = warning.substring(warning.indexOf("Run:\n  ") + 7, warning.indexOf(";\nthen"));
        List.of(statements.split(";\n  ")).forEach(table.jdbc()::execute);
        old.indexStatements().forEach(table.jdbc()::execute);

        JdbcTaskStore replaced = new JdbcTaskStore(dataSource());
        SchemaReport report = replaced.inspect(task);
        assertThat(report.warnings()).isEmpty();
        assertThat(report.indexPresent()).isTrue();
        assertThat(replaced.fetch(task, fresh(3, Long.MIN_VALUE, 100)))
                .extracting(Row::id)
                .startsWith(-5L, -1L, 3L);
    }

    @Test
    void dueRequestsOfMoreBranchesThanOneStatementTakesAsksInSeveral() {
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE MOD(user_id, 4) IN (0, 2)");
        // every shard's first page asked over and over: more branches than one statement takes
        int asked = JdbcFetch.MAX_BRANCHES + 100;
        List<FetchRequest> requests = new ArrayList<>();
        for (int i = 0; i < asked; i++) {
            requests.add(fresh(i % SHARDS, Long.MIN_VALUE, 1));
        }
        CountingDataSource counting = new CountingDataSource(dataSource());
        JdbcTaskStore counted = new JdbcTaskStore(counting.dataSource());
        counted.inspect(task);
        long before = counting.total();
        List<Integer> due = counted.dueRequests(task, requests);
        assertThat(counting.total() - before).as("statements").isEqualTo(2);
        assertThat(due).hasSize(asked / 2).doesNotHaveDuplicates().allSatisfy(position -> assertThat(
                        requests.get(position).shard())
                .isIn(1, 3));
    }

    @Test
    void dueRequestsBindingMoreParametersThanOneStatementTakesAsksInSeveral() {
        table.withStores(3);
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE MOD(user_id, 4) <> 1");
        TaskDefinition stores = storesTask();
        // 200 banned stores, none of them this table's, left out by every branch
        List<String> banned = java.util.stream.IntStream.range(100, 300)
                .mapToObj(String::valueOf)
                .toList();
        int asked = JdbcFetch.MAX_PARAMETERS / banned.size() + 10;
        List<FetchRequest> requests = new ArrayList<>();
        for (int i = 0; i < asked; i++) {
            requests.add(fresh(i % SHARDS, Long.MIN_VALUE, 1).withExcludedEndpoints(banned));
        }
        CountingDataSource counting = new CountingDataSource(dataSource());
        JdbcTaskStore counted = new JdbcTaskStore(counting.dataSource());
        assertThat(counted.inspect(stores).problems()).isEmpty();
        long before = counting.total();
        List<Integer> due = counted.dueRequests(stores, requests);
        assertThat(counting.total() - before).as("statements").isEqualTo(2);
        assertThat(due)
                .hasSize((int) requests.stream().filter(r -> r.shard() == 1).count())
                .allSatisfy(
                        position -> assertThat(requests.get(position).shard()).isEqualTo(1));
    }

    @Test
    void dueRequestsNameTheRequestsWithARowTheFetchWouldReturn() {
        assertThat(store.dueRequests(task, freshOfEveryShard())).containsExactlyInAnyOrder(0, 1, 2, 3);
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE MOD(user_id, 4) IN (0, 2)");
        assertThat(store.dueRequests(task, freshOfEveryShard())).containsExactlyInAnyOrder(1, 3);
        assertThat(store.dueRequests(task, List.of())).isEmpty();

        // a failed row of shard 3 is due in its tier only once rested, and is no fresh row
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE MOD(user_id, 4) = 1");
        failedHalfAMinuteAgo(7);
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE MOD(user_id, 4) = 3 AND order_id <> 7");
        assertThat(store.dueRequests(task, freshOfEveryShard())).isEmpty();
        assertThat(store.dueRequests(task, failedOfEveryShard(Duration.ofSeconds(31))))
                .isEmpty();
        assertThat(store.dueRequests(task, failedOfEveryShard(Duration.ofSeconds(29))))
                .containsExactly(3);
    }

    @Test
    void theDefaultDueRequestsOfAStoreWithoutItsOwnAsksEachRequestsFetch() {
        TaskStore real = store;
        TaskStore plain = (TaskStore) java.lang.reflect.Proxy.newProxyInstance(
                TaskStore.class.getClassLoader(), new Class<?>[] {TaskStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("dueRequests")) {
                        return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE MOD(user_id, 4) IN (0, 2)");
        assertThat(plain.dueRequests(task, freshOfEveryShard())).containsExactlyInAnyOrder(1, 3);
        leaveOneFailedRowInShards1And3();
        assertThat(plain.dueRequests(task, bothTiersOfEveryShard(Duration.ofSeconds(29))))
                .containsExactlyInAnyOrder(2, 3, 7);
    }

    /**
     * Requests of two tiers in one probe, each shard asked once per tier: the answer names positions
     * in the list, so a shard's fresh and failed rows are told apart, whatever the order of the list.
     */
    @Test
    void dueRequestsOfSeveralTiersNameEachRequestByItsPosition() {
        leaveOneFailedRowInShards1And3();
        assertThat(store.dueRequests(task, bothTiersOfEveryShard(Duration.ofSeconds(29))))
                .as("shard 1's fresh (2) and failed (3) rows, shard 3's failed row (7)")
                .containsExactlyInAnyOrder(2, 3, 7);
        assertThat(store.dueRequests(task, bothTiersOfEveryShard(Duration.ofSeconds(31))))
                .as("shard 3's failed row has not rested yet")
                .containsExactlyInAnyOrder(2, 3);
        List<FetchRequest> failedFirst = new ArrayList<>(failedOfEveryShard(Duration.ofSeconds(29)));
        failedFirst.addAll(freshOfEveryShard());
        assertThat(store.dueRequests(task, failedFirst))
                .as("failed rows of shards 1 and 3, then shard 1's fresh rows")
                .containsExactlyInAnyOrder(1, 3, 5);
    }

    /**
     * Shards 0 and 2 done; shard 1 keeps its fresh rows and order 5 failed once at T0; shard 3 holds
     * only order 7, failed twice half a minute ago by the database's clock.
     */
    void leaveOneFailedRowInShards1And3() {
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE MOD(user_id, 4) IN (0, 2)");
        table.jdbc().update("UPDATE tb_order SET retry_count = 1 WHERE order_id = 5");
        failedHalfAMinuteAgo(7);
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE MOD(user_id, 4) = 3 AND order_id <> 7");
    }

    /**
     * The rows failed twice, 30 s ago by the database's clock: the clock the store stamps and compares
     * a row's last update with, which no node's clock moves.
     */
    void failedHalfAMinuteAgo(long... ids) {
        for (long id : ids) {
            table.jdbc()
                    .update(
                            "UPDATE tb_order SET retry_count = 2, updated_at = "
                                    + table.utcNowMinus(Duration.ofSeconds(30)) + " WHERE order_id = ?",
                            id);
        }
    }

    /**
     * The first pages of the fresh tier and of the tier of 1-5 failures of every shard, by shard:
     * shard {@code s}'s fresh rows at position {@code 2s}, its failed rows at {@code 2s + 1}.
     */
    static List<FetchRequest> bothTiersOfEveryShard(Duration rest) {
        List<FetchRequest> requests = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            requests.add(freshOfEveryShard().get(shard));
            requests.add(failedOfEveryShard(rest).get(shard));
        }
        return requests;
    }

    @Test
    void dueRequestsOfADelayedTaskCountOnlyRowsDueByTheDatabaseClock() {
        table.withDueAt(SHARDS);
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        // every row is due in an hour but order 6 (shard 2), due an hour ago; rows without a due time never are
        table.jdbc().update("UPDATE tb_order SET due_at = ?", Timestamp.from(now.plus(Duration.ofHours(1))));
        setDue(now.minus(Duration.ofHours(1)), 6);
        TaskDefinition delayed = delayed(Duration.ZERO);
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        assertThat(store.inspect(delayed).indexPresent()).isTrue();
        assertThat(store.dueRequests(delayed, freshOfEveryShard())).containsExactly(2);
    }

    @Test
    void dueRequestsLeaveOutTheRowsOfExcludedEndpoints() {
        // orders 1..40 of users 1..40; the store of each is the user mod 3; shard 1 holds 1, 5, 9, ...
        table.withStores(3);
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE MOD(user_id, 4) <> 1");
        TaskDefinition stores = storesTask();
        assertThat(store.inspect(stores).problems()).isEmpty();
        List<FetchRequest> all = freshOfEveryShard();
        assertThat(store.dueRequests(stores, all)).containsExactly(1);
        assertThat(store.dueRequests(
                        stores,
                        all.stream()
                                .map(r -> r.withExcludedEndpoints(List.of("0", "1", "2")))
                                .toList()))
                .as("every store of shard 1 is banned")
                .isEmpty();
    }

    /** The orders task with each row's store as its endpoint ({@link OrderTable#withStores}). */
    static TaskDefinition storesTask() {
        return TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .endpoints(io.shardscan.core.task.EndpointRules.of("store_id"))
                .build();
    }

    /** The first page of the fresh tier of every shard, one row, as the idle probe asks: shard {@code s} at position {@code s}. */
    static List<FetchRequest> freshOfEveryShard() {
        return java.util.stream.IntStream.range(0, SHARDS)
                .mapToObj(shard -> fresh(shard, Long.MIN_VALUE, 1))
                .toList();
    }

    /**
     * The first page of the tier of 1-5 failures of every shard, one row, failed rows that rested
     * {@code rest}: shard {@code s} at position {@code s}.
     */
    static List<FetchRequest> failedOfEveryShard(Duration rest) {
        return java.util.stream.IntStream.range(0, SHARDS)
                .mapToObj(shard -> new FetchRequest(shard, 1, 5, rest, Long.MIN_VALUE, 1))
                .toList();
    }

    @Test
    void pagesByKeysetAfterTheLastIdWithTheLimit() {
        assertThat(store.fetch(task, fresh(1, 9, 3))).extracting(Row::id).containsExactly(13L, 17L, 21L);
    }

    @Test
    void failedTierSeesOnlyItsRetryRangeOnceRested() {
        failedHalfAMinuteAgo(2, 6);
        table.jdbc().update("UPDATE tb_order SET retry_count = 7 WHERE order_id = 10");
        FetchRequest early = new FetchRequest(2, 1, 5, Duration.ofSeconds(31), Long.MIN_VALUE, 100);
        FetchRequest rested = new FetchRequest(2, 1, 5, Duration.ofSeconds(29), Long.MIN_VALUE, 100);
        assertThat(store.fetch(task, early)).isEmpty();
        assertThat(store.fetch(task, rested)).extracting(Row::id).containsExactly(2L, 6L);
        assertThat(store.fetch(task, fresh(2, Long.MIN_VALUE, 100)))
                .extracting(Row::id)
                .doesNotContain(2L, 6L, 10L);
    }

    @Test
    void writeBackMarksDoneFailedAndDeadUnderTheCurrentFence() {
        long epoch = store.fence(task, 1, "node-a");
        // the node's clock, a year off: the rows are stamped with the database's
        Instant at = Instant.now().plus(Duration.ofDays(365));
        WriteBack batch = new WriteBack(
                1,
                epoch,
                at,
                List.of(1L),
                List.of(new WriteBack.Failure(5, 1, "boom")),
                List.of(new WriteBack.Failure(9, 16, "gone")));
        assertThat(store.writeBack(task, batch)).isTrue();
        assertThat(table.jdbc()
                        .queryForList("SELECT order_id, status, retry_count, last_error FROM tb_order"
                                + " WHERE order_id IN (1, 5, 9) ORDER BY order_id"))
                .extracting(m -> List.of(
                        number(m, "order_id"),
                        number(m, "status"),
                        number(m, "retry_count"),
                        String.valueOf(m.get(key(m, "last_error")))))
                .containsExactly(
                        List.of(1L, 1L, 0L, "null"), List.of(5L, 0L, 1L, "boom"), List.of(9L, 2L, 16L, "gone"));
        Instant databaseNow = table.databaseNow();
        for (long id : List.of(1L, 5L, 9L)) {
            assertThat(table.updatedAt(id))
                    .as("order %s stamped with the database's clock in UTC (now %s), not the node's", id, databaseNow)
                    .isBetween(databaseNow.minusSeconds(10), databaseNow);
        }
    }

    @Test
    void staleEpochWritesNothing() {
        long first = store.fence(task, 1, "node-a");
        long second = store.fence(task, 1, "node-b");
        assertThat(second).isGreaterThan(first);
        WriteBack stale = new WriteBack(1, first, T0, List.of(1L, 5L), List.of(), List.of());
        assertThat(store.writeBack(task, stale)).isFalse();
        WriteBack staleFailure =
                new WriteBack(1, first, T0, List.of(), List.of(new WriteBack.Failure(5, 1, "late")), List.of());
        assertThat(store.writeBack(task, staleFailure)).isFalse();
        assertThat(table.count("status = 1 OR retry_count > 0")).isZero();
        assertThat(store.writeBack(task, new WriteBack(1, second, T0, List.of(1L), List.of(), List.of())))
                .isTrue();
        assertThat(table.count("status = 1")).isEqualTo(1);
    }

    @Test
    void fenceIssuesTheNextEpochWhateverTheFenceHeld() {
        assertThat(store.fence(task, 3, "node-a")).isEqualTo(1);
        assertThat(store.fence(task, 3, "node-a")).isEqualTo(2);
        // an epoch a coordinator once wrote there, e.g. a Redis counter seeded from its clock
        table.jdbc().update("UPDATE scan_fence SET epoch = 1800000000000000 WHERE task = 'orders' AND shard = 3");
        assertThat(store.fence(task, 3, "node-b")).isEqualTo(1_800_000_000_000_001L);
        assertThat(table.jdbc()
                        .queryForObject(
                                "SELECT owner FROM scan_fence WHERE task = 'orders' AND shard = 3", String.class))
                .isEqualTo("node-b");
    }

    /**
     * A change from 4 shards to 8 while running: shard 7 of 8 holds part of shard 3 of 4's rows (keys 7
     * mod 8), so it is fenced only once shard 3's fence is the count of 8's, and a node of 4 that fences
     * shard 3 again ends the write-backs of both its children, 3 and 7 of 8.
     */
    @Test
    void aShardOfADoubledCountIsFencedOnceItsParentsFenceIsThatCountsAndAParentsFenceEndsItsChildren() {
        TaskDefinition doubled = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS * 2)
                .build();
        long parent = store.fence(task, 3, "node-a");
        assertThat(store.fence(doubled, 7, "node-b"))
                .as("shard 7 of 8 while shard 3's fence is the count of 4's, whose owner may run its rows")
                .isZero();
        long child3 = store.fence(doubled, 3, "node-b");
        assertThat(child3).isEqualTo(parent + 1);
        long child7 = store.fence(doubled, 7, "node-c");
        assertThat(child7).isPositive();
        assertThat(store.writeBack(task, new WriteBack(3, parent, T0, List.of(7L), List.of(), List.of())))
                .as("shard 3 of 4's owner, fenced by shard 3 of 8's")
                .isFalse();

        long again = store.fence(task, 3, "node-a");
        assertThat(store.writeBack(doubled, new WriteBack(7, child7, T0, List.of(7L), List.of(), List.of())))
                .as("shard 7 of 8's owner, once a node of 4 fenced its parent again")
                .isFalse();
        assertThat(store.writeBack(doubled, new WriteBack(3, child3, T0, List.of(3L), List.of(), List.of())))
                .isFalse();
        assertThat(table.count("status = 1")).isZero();
        assertThat(store.fence(doubled, 7, "node-c")).isZero();
        assertThat(store.writeBack(task, new WriteBack(3, again, T0, List.of(3L, 7L), List.of(), List.of())))
                .isTrue();
        assertThat(table.count("status = 1")).isEqualTo(2);
    }

    @Test
    void fencesRaisedAtOnceByManyNodesAreEachIssuedAnEpochOfTheirOwn() throws Exception {
        int nodes = 8;
        int each = 5;
        // owned once before: the race is between owners raising it (first fences race below)
        assertThat(store.fence(task, 2, "node-first")).isEqualTo(1);
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        try {
            List<Future<List<Long>>> issued = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int n = 0; n < nodes; n++) {
                String owner = "node-" + n;
                issued.add(pool.submit(() -> {
                    start.await();
                    List<Long> epochs = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        epochs.add(store.fence(task, 2, owner));
                    }
                    return epochs;
                }));
            }
            start.countDown();
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> epochs : issued) {
                all.addAll(epochs.get(60, TimeUnit.SECONDS));
            }
            assertThat(all).doesNotHaveDuplicates().hasSize(nodes * each).allMatch(epoch -> epoch > 1);
            assertThat(table.jdbc()
                            .queryForObject(
                                    "SELECT epoch FROM scan_fence WHERE task = 'orders' AND shard = 2", Long.class))
                    .isEqualTo(1L + nodes * each);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Eight nodes fence the four shards of a task never fenced before, all at once, each in its own
     * order, five tasks in a row: every fence succeeds (none is lost to a deadlock of two first
     * inserts), and each shard's fences are issued the epochs 1 to 8, one each.
     */
    @Test
    void firstFencesOfFreshShardsRaisedAtOnceByManyNodesAllSucceed() throws Exception {
        int nodes = 8;
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        try {
            for (int round = 0; round < 5; round++) {
                TaskDefinition fresh = TaskDefinition.builder("fresh-" + round)
                        .table("tb_order")
                        .idColumn("order_id")
                        .shardKeyColumn("user_id")
                        .shards(SHARDS)
                        .build();
                CountDownLatch start = new CountDownLatch(1);
                List<Future<long[]>> issued = new ArrayList<>();
                for (int n = 0; n < nodes; n++) {
                    String owner = "node-" + n;
                    int first = n % SHARDS;
                    issued.add(pool.submit(() -> {
                        start.await();
                        long[] epochs = new long[SHARDS];
                        for (int i = 0; i < SHARDS; i++) {
                            int shard = (first + i) % SHARDS;
                            epochs[shard] = store.fence(fresh, shard, owner);
                        }
                        return epochs;
                    }));
                }
                start.countDown();
                List<long[]> all = new ArrayList<>();
                for (Future<long[]> epochs : issued) {
                    all.add(epochs.get(60, TimeUnit.SECONDS));
                }
                for (int shard = 0; shard < SHARDS; shard++) {
                    int s = shard;
                    assertThat(all.stream().map(epochs -> epochs[s]))
                            .as("shard %d of %s", shard, fresh.name())
                            .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void failedRowsAreTheShardsPendingRowsThatFailedInIdOrder() {
        table.jdbc().update("UPDATE tb_order SET retry_count = 2 WHERE order_id IN (30, 6, 18)");
        table.jdbc().update("UPDATE tb_order SET retry_count = 1, status = 2 WHERE order_id = 10");
        table.jdbc().update("UPDATE tb_order SET retry_count = 1 WHERE order_id = 7");
        assertThat(store.failedRows(task, 2)).containsExactly(new RowKey(6, 6), new RowKey(18, 18), new RowKey(30, 30));
        assertThat(store.failedRows(task, 0)).isEmpty();
    }

    @Test
    void storeCutsErrorsToItsColumn() {
        long epoch = store.fence(task, 1, "node-a");
        String longError = "x".repeat(2000);
        store.writeBack(
                task,
                new WriteBack(1, epoch, T0, List.of(), List.of(new WriteBack.Failure(5, 1, longError)), List.of()));
        String kept = table.jdbc().queryForObject("SELECT last_error FROM tb_order WHERE order_id = 5", String.class);
        assertThat(kept).hasSize(512).endsWith("…").startsWith("xxxx");
    }

    @Test
    void writeBackLeavesRowsThatAreNoLongerPending() {
        long epoch = store.fence(task, 1, "node-a");
        table.jdbc().update("UPDATE tb_order SET status = 2 WHERE order_id = 1");
        store.writeBack(task, new WriteBack(1, epoch, T0, List.of(1L), List.of(), List.of()));
        assertThat(table.count("order_id = 1 AND status = 2")).isEqualTo(1);
    }

    @Test
    void reportsMissingTableColumnsAndIndex() {
        SchemaReport noTable =
                store.inspect(TaskDefinition.builder("x").table("no_such_table").build());
        assertThat(noTable.tableExists()).isFalse();
        SchemaReport noColumn = store.inspect(TaskDefinition.builder("x")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .retryColumn("attempts")
                .build());
        assertThat(noColumn.missingColumns()).containsExactly("attempts");
        new OrderTable(dataSource()).recreate(SHARDS, false);
        SchemaReport noIndex = new JdbcTaskStore(dataSource()).inspect(task);
        assertThat(noIndex.indexPresent()).isFalse();
        assertThat(String.join(";", noIndex.indexStatements())).contains("CREATE INDEX tb_order_scan_idx ON tb_order");
        noIndex.indexStatements().forEach(table.jdbc()::execute);
        assertThat(new JdbcTaskStore(dataSource()).inspect(task).indexPresent()).isTrue();
    }

    @Test
    void acceptsTheColumnTypesOfTheDocumentedTable() {
        SchemaReport report = store.inspect(task);
        assertThat(report.problems()).isEmpty();
        assertThat(report.nullShardKeys()).isZero();
        assertThat(report.columns()).map(String::toLowerCase).contains("order_id", "user_id", "status");
    }

    @Test
    void namesColumnsOfTypesTheScanCannotUse() {
        table.jdbc().execute("DROP TABLE IF EXISTS tb_typed");
        table.jdbc()
                .execute("CREATE TABLE tb_typed (id VARCHAR(36) PRIMARY KEY, user_id BIGINT, status VARCHAR(16)"
                        + " NOT NULL, retry_count INT NOT NULL, updated_at TIMESTAMP NULL, last_error VARCHAR(512))");
        try {
            SchemaReport report = store.inspect(TaskDefinition.builder("typed")
                    .table("tb_typed")
                    .shardKeyColumn("user_id")
                    .build());
            assertThat(report.problems()).hasSize(2);
            assertThat(report.problems().get(0))
                    .containsIgnoringCase("column id (scan.tasks.typed.id-column) is of type")
                    .containsAnyOf("VARCHAR", "CHARACTER VARYING")
                    .contains("set scan.tasks.typed.id-type: text");
            assertThat(report.problems().get(1))
                    .containsIgnoringCase("column status (scan.tasks.typed.status-column) is of type")
                    .contains("whole-number");
        } finally {
            table.jdbc().execute("DROP TABLE tb_typed");
        }
    }

    @Test
    void countsPendingRowsWithoutShardKey() {
        table.jdbc().execute("DROP TABLE IF EXISTS tb_keyless");
        table.jdbc()
                .execute("CREATE TABLE tb_keyless (id BIGINT PRIMARY KEY, user_id BIGINT, status INT NOT NULL,"
                        + " retry_count INT NOT NULL, updated_at TIMESTAMP NULL, last_error VARCHAR(512))");
        try {
            table.jdbc()
                    .execute("INSERT INTO tb_keyless (id, user_id, status, retry_count) VALUES"
                            + " (1, NULL, 0, 0), (2, NULL, 0, 0), (3, 7, 0, 0), (4, NULL, 1, 0)");
            SchemaReport report = store.inspect(TaskDefinition.builder("keyless")
                    .table("tb_keyless")
                    .shardKeyColumn("user_id")
                    .build());
            assertThat(report.problems()).isEmpty();
            assertThat(report.nullShardKeys()).isEqualTo(2);
            // and the backlog counter keeps showing them, for /actuator/scan
            assertThat(store.admin()
                            .countBacklog(TaskDefinition.builder("keyless")
                                    .table("tb_keyless")
                                    .shardKeyColumn("user_id")
                                    .build())
                            .withoutShardKey())
                    .isEqualTo(2);
        } finally {
            table.jdbc().execute("DROP TABLE tb_keyless");
        }
    }

    @Test
    void unindexedTableIsStillFetchedCorrectly() {
        new OrderTable(dataSource()).recreate(SHARDS, false).insert(8, 4, T0);
        TaskDefinition warn = TaskDefinition.builder("orders")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .indexCheck(IndexCheck.WARN)
                .build();
        JdbcTaskStore fresh = new JdbcTaskStore(dataSource());
        fresh.inspect(warn);
        assertThat(fresh.fetch(warn, fresh(3, Long.MIN_VALUE, 10)))
                .extracting(Row::id)
                .containsExactly(3L, 7L);
    }

    @Test
    void countsPendingRowsByRetryCountAndDeadRows() {
        table.jdbc().update("UPDATE tb_order SET status = 1 WHERE order_id <= 10");
        table.jdbc().update("UPDATE tb_order SET status = 2 WHERE order_id BETWEEN 11 AND 13");
        table.jdbc()
                .update(
                        "UPDATE tb_order SET retry_count = 3, updated_at = ? WHERE order_id BETWEEN 14 AND 15",
                        OrderTable.utc(T0.minusSeconds(60)));
        BacklogCounts counts = store.admin().countBacklog(task);
        assertThat(counts.dead()).isEqualTo(3);
        assertThat(counts.pending())
                .extracting(BacklogCounts.Group::retries, BacklogCounts.Group::count)
                .containsExactlyInAnyOrder(tuple(0, 25L), tuple(3, 2L));
        assertThat(counts.pending())
                .filteredOn(g -> g.retries() == 3)
                .singleElement()
                .satisfies(g -> assertThat(g.oldestUpdatedAt()).isEqualTo(T0.minusSeconds(60)));
        Backlog backlog = Backlog.of(task, counts, T0);
        assertThat(backlog.total()).isEqualTo(27);
        assertThat(backlog.tiers())
                .extracting(
                        Backlog.TierBacklog::retries,
                        Backlog.TierBacklog::pending,
                        Backlog.TierBacklog::oldestPendingAgeSeconds)
                .containsExactly(tuple("0", 25L, 0L), tuple("1-5", 2L, 60L), tuple("6-15", 0L, 0L));
    }

    @Test
    void countsTheBacklogInOneStatement() {
        table.jdbc().update("UPDATE tb_order SET status = 2 WHERE order_id <= 2");
        CountingDataSource counting = new CountingDataSource(dataSource());
        JdbcTaskStore counted = new JdbcTaskStore(counting.dataSource());
        counted.inspect(task);
        long before = counting.total();
        BacklogCounts counts = counted.admin().countBacklog(task);
        assertThat(counting.total() - before)
                .as("statements of a backlog count: %s", counting.byKind())
                .isEqualTo(1);
        assertThat(counts.dead()).isEqualTo(2);
        assertThat(counts.pending()).extracting(BacklogCounts.Group::count).containsExactly(38L);
    }

    @Test
    void requeuesDeadRowsAsFresh() {
        table.jdbc().update("UPDATE tb_order SET status = 2, retry_count = 16 WHERE order_id IN (3, 4)");
        assertThat(store.admin().requeueDead(task)).isEqualTo(2);
        assertThat(table.count("order_id IN (3, 4) AND status = 0 AND retry_count = 0"))
                .isEqualTo(2);
        assertThat(store.admin().countBacklog(task).dead()).isZero();
    }

    /** A task of tb_order whose rows are due at due_at (plus {@code delay}). */
    TaskDefinition delayed(Duration delay) {
        return TaskDefinition.builder("delayed")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .dueAtColumn("due_at")
                .delay(delay)
                .build();
    }

    /** Sets due_at of the orders; the offsets the tests use are hours, far beyond any clock skew. */
    void setDue(Instant dueAt, long... ids) {
        for (long id : ids) {
            table.jdbc().update("UPDATE tb_order SET due_at = ? WHERE order_id = ?", Timestamp.from(dueAt), id);
        }
    }

    @Test
    void delayedTaskFetchesOnlyRowsDueByTheDatabaseClockInDueOrder() {
        table.withDueAt(SHARDS);
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        // shard 1 holds orders 1, 5, 9, ..., 37; the others of it have no due time and are never due
        setDue(now.minus(Duration.ofHours(3)), 13);
        setDue(now.minus(Duration.ofHours(2)), 9, 1);
        setDue(now.minus(Duration.ofHours(1)), 5);
        setDue(now.plus(Duration.ofHours(1)), 17, 21);
        TaskDefinition delayed = delayed(Duration.ZERO);
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        assertThat(store.inspect(delayed).indexPresent()).isTrue();
        List<Row> rows = store.fetch(delayed, fresh(1, Long.MIN_VALUE, 100));
        assertThat(rows).extracting(Row::id).containsExactly(13L, 1L, 9L, 5L);
        assertThat(rows.get(0).dueAt()).isEqualTo(now.minus(Duration.ofHours(3)));
        assertThat(store.fetch(task, fresh(1, Long.MIN_VALUE, 100)))
                .as("the same table without a due-at column: every pending row, in id order")
                .hasSize(10);
    }

    @Test
    void delayedTaskPagesByDueTimeThenIdWithoutSkippingTies() {
        table.withDueAt(SHARDS);
        Instant due = Instant.now().minus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        setDue(due, 21, 1, 9, 5);
        setDue(due.plusSeconds(1), 13, 17);
        TaskDefinition delayed = delayed(Duration.ZERO);
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        store.inspect(delayed);
        List<Long> read = new java.util.ArrayList<>();
        Instant afterDue = null;
        long afterId = Long.MIN_VALUE;
        for (int page = 0; page < 10; page++) {
            List<Row> rows = store.fetch(delayed, new FetchRequest(1, 0, 0, null, afterDue, afterId, 2));
            rows.forEach(r -> read.add(r.id()));
            if (rows.size() < 2) {
                break;
            }
            afterDue = rows.get(1).dueAt();
            afterId = rows.get(1).id();
        }
        assertThat(read).containsExactly(1L, 5L, 9L, 21L, 13L, 17L);
    }

    /**
     * A time-zone-aware due-at column (PostgreSQL timestamptz, H2 TIMESTAMP WITH TIME ZONE, MariaDB
     * TIMESTAMP) is read, and four rows sharing a due time with microseconds cross a page edge:
     * the due time bound back for the keyset compares equal to the stored one, so none is skipped
     * or read twice.
     */
    @Test
    void zonedDueAtColumnPagesWithoutSkippingTies() {
        table.withZonedDueAt(SHARDS);
        Instant due = Instant.now()
                .minus(Duration.ofHours(1))
                .truncatedTo(ChronoUnit.SECONDS)
                .plusNanos(123_456_000);
        setDue(due, 21, 1, 9, 5);
        setDue(due.plusSeconds(1), 13, 17);
        TaskDefinition delayed = delayed(Duration.ZERO);
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        assertThat(store.inspect(delayed).problems()).isEmpty();
        List<Long> read = new java.util.ArrayList<>();
        Instant afterDue = null;
        long afterId = Long.MIN_VALUE;
        for (int page = 0; page < 10; page++) {
            List<Row> rows = store.fetch(delayed, new FetchRequest(1, 0, 0, null, afterDue, afterId, 3));
            rows.forEach(r -> read.add(r.id()));
            if (rows.size() < 3) {
                break;
            }
            afterDue = rows.get(2).dueAt();
            afterId = rows.get(2).id();
        }
        assertThat(read).containsExactly(1L, 5L, 9L, 21L, 13L, 17L);
        assertThat(store.fetch(delayed, fresh(1, Long.MIN_VALUE, 1)).get(0).dueAt())
                .isBetween(due.truncatedTo(ChronoUnit.MILLIS), due);
    }

    @Test
    void delayCountsFromTheDueAtColumn() {
        table.withDueAt(SHARDS);
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        setDue(now.minus(Duration.ofMinutes(30)), 1);
        setDue(now.minus(Duration.ofHours(2)), 5);
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        TaskDefinition hourLater = delayed(Duration.ofHours(1));
        store.inspect(hourLater);
        assertThat(store.fetch(hourLater, fresh(1, Long.MIN_VALUE, 100)))
                .extracting(Row::id)
                .containsExactly(5L);
    }

    @Test
    void delayedTaskKeepsTheDueTimeOfFailedRowsAndCountsRowsNotYetDue() {
        table.withDueAt(SHARDS);
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        setDue(now.minus(Duration.ofHours(1)), 2, 6, 10, 14);
        setDue(now.plus(Duration.ofHours(1)), 18, 22);
        table.jdbc().update("UPDATE tb_order SET retry_count = 2 WHERE order_id IN (6, 22)");
        TaskDefinition delayed = delayed(Duration.ZERO);
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        store.inspect(delayed);
        assertThat(store.failedRows(delayed, 2))
                .containsExactlyInAnyOrder(
                        new RowKey(6, 6, now.minus(Duration.ofHours(1))),
                        new RowKey(22, 22, now.plus(Duration.ofHours(1))));
        BacklogCounts counts = store.admin().countBacklog(delayed);
        // 40 pending: 4 due, 2 due in an hour, 34 without a due time (never due, counted apart)
        assertThat(counts.pending())
                .extracting(
                        BacklogCounts.Group::retries,
                        BacklogCounts.Group::count,
                        BacklogCounts.Group::notYetDue,
                        BacklogCounts.Group::withoutDueTime)
                .containsExactlyInAnyOrder(tuple(0, 38L, 1L, 34L), tuple(2, 2L, 1L, 0L));
        Backlog backlog = Backlog.of(delayed, counts, now);
        assertThat(backlog.tiers())
                .extracting(
                        Backlog.TierBacklog::retries,
                        Backlog.TierBacklog::pending,
                        Backlog.TierBacklog::notYetDue,
                        Backlog.TierBacklog::withoutDueTime)
                .containsExactly(tuple("0", 38L, 1L, 34L), tuple("1-5", 2L, 1L, 0L), tuple("6-15", 0L, 0L, 0L));
        assertThat(backlog.notYetDue()).isEqualTo(2);
        assertThat(backlog.withoutDueTime()).isEqualTo(34);
        assertThat(store.inspect(delayed).nullDueTimes())
                .as("startup counts them too, to warn")
                .isEqualTo(34);
        assertThat(store.admin().countBacklog(task).pending())
                .as("without a due-at column every row is due")
                .allSatisfy(group -> assertThat(group.notYetDue()).isZero());
    }

    /**
     * With {@code delay: 15m}, the oldest pending age of the fresh tier counts from the oldest due
     * row's due time plus the delay (45 min ago), not from its last update (a year ago), and rows
     * still waiting for their due time do not count.
     */
    @Test
    void delayedTaskAgesItsFreshRowsFromTheirDueTime() {
        table.withDueAt(SHARDS);
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        setDue(now.minus(Duration.ofHours(1)), 1, 2);
        setDue(now.minus(Duration.ofMinutes(5)), 3, 4);
        TaskDefinition delayed = delayed(Duration.ofMinutes(15));
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        store.inspect(delayed);
        Backlog backlog = Backlog.of(delayed, store.admin().countBacklog(delayed), now);
        assertThat(backlog.tiers().get(0).oldestPendingAgeSeconds())
                .isBetween(
                        Duration.ofMinutes(45).toSeconds() - 5,
                        Duration.ofMinutes(45).toSeconds() + 5);
        setDue(now.minus(Duration.ofMinutes(5)), 1, 2);
        assertThat(Backlog.of(delayed, store.admin().countBacklog(delayed), now)
                        .tiers()
                        .get(0)
                        .oldestPendingAgeSeconds())
                .as("no row is due yet")
                .isZero();
    }

    @Test
    void delayedTaskAsksForTheDueIndexAndAcceptsItOnceCreated() {
        new OrderTable(dataSource()).recreate(SHARDS, false).withDueAtColumn();
        TaskDefinition delayed = delayed(Duration.ZERO);
        SchemaReport report = new JdbcTaskStore(dataSource()).inspect(delayed);
        assertThat(report.problems()).isEmpty();
        assertThat(report.indexPresent()).isFalse();
        assertThat(String.join(";", report.indexStatements()))
                .contains("CREATE INDEX tb_order_due_idx ON tb_order (")
                .contains("due_at, order_id)");
        report.indexStatements().forEach(table.jdbc()::execute);
        assertThat(new JdbcTaskStore(dataSource()).inspect(delayed).indexPresent())
                .isTrue();
        assertThat(new JdbcTaskStore(dataSource()).inspect(task).indexPresent())
                .as("the due index is not the scan index of a task without a due-at column")
                .isFalse();
    }

    @Test
    void delayedTaskWithAMatchFetchesOnlyItsDueRowsAndAsksForAnIndexWithBoth() {
        table.withDueAtColumn();
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        setDue(now.minus(Duration.ofHours(2)), 1, 5, 9);
        setDue(now.minus(Duration.ofHours(1)), 13);
        setDue(now.plus(Duration.ofHours(1)), 17);
        TaskDefinition delayed = TaskDefinition.builder("delayed")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS)
                .dueAtColumn("due_at")
                .match(List.of(io.shardscan.core.task.Match.of("phone", "+155513", "+15555", "+155517")))
                .build();
        JdbcTaskStore store = new JdbcTaskStore(dataSource());
        SchemaReport report = store.inspect(delayed);
        assertThat(report.problems()).isEmpty();
        assertThat(String.join(";", report.indexStatements()))
                .contains("due_at, order_id)")
                .contains("phone");
        assertThat(store.fetch(delayed, fresh(1, Long.MIN_VALUE, 100)))
                .extracting(Row::id)
                .containsExactly(5L, 13L);
    }

    @Test
    void dueAtColumnMustExistAndHoldATimestamp() {
        TaskDefinition.Builder builder = TaskDefinition.builder("delayed")
                .table("tb_order")
                .idColumn("order_id")
                .shardKeyColumn("user_id")
                .shards(SHARDS);
        assertThat(store.inspect(builder.dueAtColumn("due_at").build()).missingColumns())
                .containsExactly("due_at");
        SchemaReport wrongType = store.inspect(builder.dueAtColumn("phone").build());
        assertThat(wrongType.problems())
                .singleElement()
                .asString()
                .containsIgnoringCase("column phone (scan.tasks.delayed.due-at-column) is of type")
                .contains("it needs a timestamp type");
    }

    static FetchRequest fresh(int shard, long afterId, int limit) {
        return new FetchRequest(shard, 0, 0, null, afterId, limit);
    }

    private static String key(java.util.Map<String, Object> row, String name) {
        return row.keySet().stream()
                .filter(k -> k.equalsIgnoreCase(name))
                .findFirst()
                .orElseThrow();
    }

    private static long number(java.util.Map<String, Object> row, String name) {
        return ((Number) row.get(key(row, name))).longValue();
    }

    /**
     * The database's plan for the fetch of a tier's rows of shard 1, every column of every plan
     * row joined; {@code setting} (or {@code null}) runs first on the same connection.
     */
    String explainFetch(int minRetries, int maxRetries, String setting) throws SQLException {
        SqlDialect dialect = SqlDialect.detect(dataSource());
        TaskSql sql = TaskSql.of(
                task, new TableInspector(dataSource(), dialect).inspect(task).names(), dialect);
        try (Connection connection = dataSource().getConnection()) {
            if (setting != null) {
                connection.createStatement().execute(setting);
            }
            FetchRequest request = new FetchRequest(
                    1, minRetries, maxRetries, maxRetries > 0 ? Duration.ofSeconds(30) : null, Long.MIN_VALUE, 100);
            try (PreparedStatement explain =
                    connection.prepareStatement("EXPLAIN " + sql.fetch().sql(request))) {
                int index = 1;
                explain.setInt(index++, 1);
                explain.setLong(index++, Long.MIN_VALUE);
                explain.setInt(index, 100);
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) {
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            plan.append(rs.getString(i)).append(' ');
                        }
                        plan.append('\n');
                    }
                }
                return plan.toString();
            }
        }
    }

    /**
     * The database's plan for the idle probe of the fresh tier and the tier of 1-5 failures over
     * every shard (failed rows rested 30 s); {@code explain} is the statement's prefix, e.g.
     * {@code "EXPLAIN "}, and {@code setting} (or {@code null}) runs first on the same connection.
     */
    String explainProbe(String explain, String setting) throws SQLException {
        SqlDialect dialect = SqlDialect.detect(dataSource());
        TaskSql sql = TaskSql.of(
                task, new TableInspector(dataSource(), dialect).inspect(task).names(), dialect);
        try (Connection connection = dataSource().getConnection()) {
            if (setting != null) {
                connection.createStatement().execute(setting);
            }
            List<FetchRequest> requests = bothTiersOfEveryShard(Duration.ofSeconds(30));
            try (PreparedStatement statement = connection.prepareStatement(
                    explain + TaskSql.Fetch.probe(java.util.Collections.nCopies(requests.size(), sql), requests))) {
                int index = 1;
                for (FetchRequest request : requests) {
                    statement.setInt(index++, request.shard());
                    statement.setLong(index++, request.afterId());
                    statement.setInt(index++, request.limit());
                }
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = statement.executeQuery()) {
                    while (rs.next()) {
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            plan.append(rs.getString(i)).append(' ');
                        }
                        plan.append('\n');
                    }
                }
                return plan.toString();
            }
        }
    }

    /**
     * The database's plan for the first page of fresh rows of shard 1 of {@code delayed}, every
     * column of every plan row joined; {@code explain} is the statement's prefix, e.g.
     * {@code "EXPLAIN ANALYZE "}, and {@code setting} (or {@code null}) runs first on the same connection.
     */
    String explainDelayedFetch(TaskDefinition delayed, String explain, String setting) throws SQLException {
        SqlDialect dialect = SqlDialect.detect(dataSource());
        TaskSql sql = TaskSql.of(
                delayed,
                new TableInspector(dataSource(), dialect).inspect(delayed).names(),
                dialect);
        try (Connection connection = dataSource().getConnection()) {
            if (setting != null) {
                connection.createStatement().execute(setting);
            }
            FetchRequest request = new FetchRequest(1, 0, 0, null, null, Long.MIN_VALUE, 100);
            try (PreparedStatement statement =
                    connection.prepareStatement(explain + sql.fetch().sql(request))) {
                statement.setInt(1, 1);
                statement.setInt(2, 100);
                StringBuilder plan = new StringBuilder();
                try (ResultSet rs = statement.executeQuery()) {
                    while (rs.next()) {
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            plan.append(rs.getString(i)).append(' ');
                        }
                        plan.append('\n');
                    }
                }
                return plan.toString();
            }
        }
    }
}
