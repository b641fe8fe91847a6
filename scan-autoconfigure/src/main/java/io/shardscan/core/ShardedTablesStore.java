package io.shardscan.core;

import io.shardscan.core.spi.BacklogCounts;
import io.shardscan.core.spi.FailureGroup;
import io.shardscan.core.spi.FetchRequest;
import io.shardscan.core.spi.Firing;
import io.shardscan.core.spi.Requeue;
import io.shardscan.core.spi.RunCounts;
import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.spi.TaskAdmin;
import io.shardscan.core.spi.TaskControl;
import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.spi.TaskRuns;
import io.shardscan.core.spi.TaskStore;
import io.shardscan.core.spi.WriteBack;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowKey;
import io.shardscan.core.task.RunRange;
import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The store of a sharded task ({@link TaskDefinition#tables()}): each logical shard's reads, fence and
 * write-backs go to the store of its table's data source, with that table's part of the task
 * ({@link TaskDefinition#part}), so a shard's fence and its run counts live in the data source of its
 * rows and the write-back checks them in the same transaction, as for a task of one table. The task's
 * runs and its pause live in one place, the {@code home} store (the engine's own data source); a run's
 * counts are summed over every data source. The idle probe asks every idle shard of one data source in
 * one statement ({@link TaskStore#dueRequests(List, List)}), so an idle task costs a statement per data
 * source, not per table; the backlog count likewise counts each data source's tables together
 * ({@link TaskAdmin#countBacklogs}). Thread-safe as its stores.
 */
public final class ShardedTablesStore implements TaskStore {

    private final TaskStore home;
    private final List<TaskStore> stores;
    private final List<TaskStore> distinct;
    private final Parts parts = new Parts();

    /**
     * @param home where the task's runs and pause live
     * @param stores the store of each of the task's tables, in {@link TaskDefinition#tables()} order: one
     *     object for the tables of one data source
     */
    public ShardedTablesStore(TaskStore home, List<TaskStore> stores) {
        this.home = Objects.requireNonNull(home, "home");
        this.stores = List.copyOf(stores);
        Map<TaskStore, Boolean> seen = new IdentityHashMap<>();
        List<TaskStore> each = new ArrayList<>();
        for (TaskStore store : this.stores) {
            if (seen.put(store, Boolean.TRUE) == null) {
                each.add(store);
            }
        }
        this.distinct = List.copyOf(each);
    }

    /**
     * A sharded task's store, each table's from {@code storeOf} its {@link
     * io.shardscan.core.task.Tables.Table#source() source} (asked once per source).
     */
    public static ShardedTablesStore of(TaskDefinition task, TaskStore home, Function<String, TaskStore> storeOf) {
        Map<String, TaskStore> bySource = new LinkedHashMap<>();
        List<TaskStore> stores = new ArrayList<>();
        for (var table : Objects.requireNonNull(task.tables(), "tables").tables()) {
            stores.add(bySource.computeIfAbsent(table.source(), storeOf));
        }
        return new ShardedTablesStore(home, stores);
    }

    /** The store of each table, in the task's table order. */
    List<TaskStore> stores() {
        return stores;
    }

    private TaskStore store(TaskDefinition task, int shard) {
        return stores.get(tables(task).tableOf(shard));
    }

    private static io.shardscan.core.task.Tables tables(TaskDefinition task) {
        return Objects.requireNonNull(task.tables(), () -> "task " + task.name() + " scans one table");
    }

    /**
     * Each table's report, merged: the table exists and has its index only when every one does; missing
     * columns, problems and warnings name their table; the statements that add a missing index are every
     * table's that lacks one, so one WARN lists them all.
     */
    @Override
    public SchemaReport inspect(TaskDefinition task) {
        List<TaskDefinition> each = parts.of(task);
        boolean exists = true;
        boolean indexed = true;
        boolean matchFailed = false;
        long nullKeys = 0;
        long nullDue = 0;
        List<String> missing = new ArrayList<>();
        List<String> indexes = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        List<String> retryStatements = new ArrayList<>();
        List<String> missingTables = new ArrayList<>();
        SchemaReport first = null;
        for (int table = 0; table < each.size(); table++) {
            TaskDefinition part = each.get(table);
            SchemaReport report = stores.get(table).inspect(part);
            first = first == null ? report : first;
            if (!report.tableExists()) {
                missingTables.add(part.table());
            }
            exists &= report.tableExists();
            indexed &= report.indexPresent();
            matchFailed |= report.matchFailed();
            nullKeys += Math.max(0, report.nullShardKeys());
            nullDue += Math.max(0, report.nullDueTimes());
            report.missingColumns().forEach(column -> missing.add(part.table() + "." + column));
            indexes.addAll(report.indexStatements());
            report.problems().forEach(problem -> problems.add("table " + part.table() + ": " + problem));
            report.warnings().forEach(warning -> warnings.add("table " + part.table() + ": " + warning));
            retryStatements.addAll(report.retryColumnStatements());
        }
        if (!missingTables.isEmpty()) {
            problems.add(0, "tables that do not exist: " + missingTables);
        }
        return new SchemaReport(
                exists,
                missing,
                indexed,
                indexes,
                problems,
                first.columns(),
                nullKeys,
                List.of(),
                matchFailed,
                warnings,
                nullDue,
                first.unfetchable(),
                retryStatements,
                first.columnClasses());
    }

    @Override
    public TaskStore boundedBy(Duration timeout) {
        Map<TaskStore, TaskStore> bounded = new IdentityHashMap<>();
        distinct.forEach(store -> bounded.put(store, store.boundedBy(timeout)));
        return new ShardedTablesStore(
                home.boundedBy(timeout), stores.stream().map(bounded::get).toList());
    }

    @Override
    public boolean timedOut(RuntimeException failure) {
        return distinct.stream().anyMatch(store -> store.timedOut(failure)) || home.timedOut(failure);
    }

    @Override
    public List<Row> fetch(TaskDefinition task, FetchRequest request) {
        return store(task, request.shard()).fetch(parts.of(task, request.shard()), request);
    }

    /** One {@link TaskStore#dueRequests(List, List)} per data source, with the requests of all its tables. */
    @Override
    public List<Integer> dueRequests(TaskDefinition task, List<FetchRequest> requests) {
        Map<TaskStore, List<Integer>> bySource = new IdentityHashMap<>();
        for (int position = 0; position < requests.size(); position++) {
            bySource.computeIfAbsent(store(task, requests.get(position).shard()), store -> new ArrayList<>())
                    .add(position);
        }
        List<Integer> due = new ArrayList<>();
        for (TaskStore store : distinct) {
            List<Integer> positions = bySource.get(store);
            if (positions == null) {
                continue;
            }
            List<FetchRequest> asked = positions.stream().map(requests::get).toList();
            List<TaskDefinition> tables = asked.stream()
                    .map(request -> parts.of(task, request.shard()))
                    .toList();
            store.dueRequests(tables, asked).forEach(position -> due.add(positions.get(position)));
        }
        return due;
    }

    @Override
    public List<RowKey> failedRows(TaskDefinition task, int shard) {
        return store(task, shard).failedRows(parts.of(task, shard), shard);
    }

    @Override
    public long fence(TaskDefinition task, int shard, String owner) {
        return store(task, shard).fence(task, shard, owner);
    }

    @Override
    public Optional<String> fenceOwner(TaskDefinition task, int shard) {
        return store(task, shard).fenceOwner(task, shard);
    }

    @Override
    public boolean writeBack(TaskDefinition task, WriteBack batch) {
        return store(task, batch.shard()).writeBack(parts.of(task, batch.shard()), batch);
    }

    @Override
    public int archive(TaskDefinition task, int shard, long epoch) {
        throw new IllegalStateException("scan.tasks." + task.name() + " scans several tables, which do not archive");
    }

    @Override
    public TaskAdmin admin() {
        return admin;
    }

    @Override
    public TaskControl control() {
        return control;
    }

    @Override
    public @Nullable TaskRuns runs() {
        return home.runs() == null ? null : runs;
    }

    @Override
    public boolean inTransaction(TransactionalWork work) throws Exception {
        return home.inTransaction(work);
    }

    /** In the data source of the shard's table, where its fence and rows are. */
    @Override
    public boolean inTransaction(TaskDefinition task, int shard, TransactionalWork work) throws Exception {
        return store(task, shard).inTransaction(work);
    }

    /** One {@link TaskAdmin#countBacklogs} per data source, with all its tables; by table name in table order. */
    private Map<String, BacklogCounts> backlogByTable(TaskDefinition task) {
        List<TaskDefinition> each = parts.of(task);
        Map<TaskStore, List<Integer>> bySource = new IdentityHashMap<>();
        for (int table = 0; table < each.size(); table++) {
            bySource.computeIfAbsent(stores.get(table), store -> new ArrayList<>())
                    .add(table);
        }
        BacklogCounts[] counted = new BacklogCounts[each.size()];
        for (TaskStore store : distinct) {
            List<Integer> tables = bySource.get(store);
            if (tables == null) {
                continue;
            }
            List<BacklogCounts> counts =
                    store.admin().countBacklogs(tables.stream().map(each::get).toList());
            for (int i = 0; i < tables.size(); i++) {
                counted[tables.get(i)] = counts.get(i);
            }
        }
        Map<String, BacklogCounts> byTable = new LinkedHashMap<>();
        for (int table = 0; table < each.size(); table++) {
            byTable.put(each.get(table).table(), counted[table]);
        }
        return byTable;
    }

    private final TaskAdmin admin = new TaskAdmin() {

        @Override
        public BacklogCounts countBacklog(TaskDefinition task) {
            return backlogByTable(task).values().stream()
                    .reduce(BacklogCounts::plus)
                    .orElseThrow();
        }

        @Override
        public Map<String, BacklogCounts> countBacklogByTable(TaskDefinition task) {
            return backlogByTable(task);
        }

        @Override
        public int requeueDead(TaskDefinition task) {
            return eachTable(task, (store, part) -> store.admin().requeueDead(part));
        }

        @Override
        public int requeue(TaskDefinition task, Requeue which) {
            return eachTable(task, (store, part) -> store.admin().requeue(part, which));
        }

        /** Every table's groups of one error merged, the largest first, each with the tables that hold the most of it. */
        @Override
        public List<FailureGroup> failureGroups(TaskDefinition task, boolean dead, int page, int size, int examples) {
            Map<String, FailureGroup> merged = new LinkedHashMap<>();
            List<TaskDefinition> each = parts.of(task);
            for (int table = 0; table < each.size(); table++) {
                String name = each.get(table).table();
                for (FailureGroup group : allGroups(stores.get(table), each.get(table), dead, examples)) {
                    merged.merge(String.valueOf(group.error()), inTable(group, name), (a, b) -> merge(a, b, examples));
                }
            }
            List<FailureGroup> sorted = new ArrayList<>(merged.values());
            sorted.sort(Comparator.comparingLong(FailureGroup::rows).reversed());
            int from = Math.min(sorted.size(), page * size);
            return List.copyOf(sorted.subList(from, Math.min(sorted.size(), from + size)));
        }

        @Override
        public @Nullable Map<String, Object> readRow(TaskDefinition task, Object id) {
            List<TaskDefinition> each = parts.of(task);
            for (int table = 0; table < each.size(); table++) {
                Map<String, Object> row = stores.get(table).admin().readRow(each.get(table), id);
                if (row != null) {
                    return row;
                }
            }
            return null;
        }
    };

    private static final int GROUPS_PAGE = 100;

    private static List<FailureGroup> allGroups(TaskStore store, TaskDefinition part, boolean dead, int examples) {
        List<FailureGroup> groups = new ArrayList<>();
        for (int page = 0; ; page++) {
            List<FailureGroup> some = store.admin().failureGroups(part, dead, page, GROUPS_PAGE, examples);
            groups.addAll(some);
            if (some.size() < GROUPS_PAGE) {
                return groups;
            }
        }
    }

    private static FailureGroup inTable(FailureGroup group, String table) {
        return new FailureGroup(
                group.error(),
                group.rows(),
                group.firstSeen(),
                group.lastSeen(),
                group.exampleIds(),
                group.example(),
                List.of(new FailureGroup.TableRows(table, group.rows())));
    }

    /**
     * One error's groups of two sets of tables as one: the lowest of both's example ids (an id that two
     * tables share once: a requeue by id looks in every table), and the tables that hold the most rows,
     * the most first (the earlier table of two that hold as many).
     */
    private static FailureGroup merge(FailureGroup a, FailureGroup b, int examples) {
        List<Object> ids = Stream.<Object>concat(a.exampleIds().stream(), b.exampleIds().stream())
                .distinct()
                .sorted(ShardedTablesStore::compareIds)
                .limit(examples)
                .toList();
        List<FailureGroup.TableRows> tables = Stream.concat(a.tables().stream(), b.tables().stream())
                .sorted(Comparator.comparingLong(FailureGroup.TableRows::rows).reversed())
                .limit(FailureGroup.TABLES_SHOWN)
                .toList();
        return new FailureGroup(
                a.error(),
                a.rows() + b.rows(),
                a.firstSeen().isBefore(b.firstSeen()) ? a.firstSeen() : b.firstSeen(),
                a.lastSeen().isAfter(b.lastSeen()) ? a.lastSeen() : b.lastSeen(),
                ids,
                a.example() != null ? a.example() : b.example(),
                tables);
    }

    /**
     * Ids as {@link Row#idValue()} gives them, whole numbers by value; text and UUID ids by their text,
     * which may order text otherwise than the database's collation did within one table.
     */
    private static int compareIds(Object a, Object b) {
        if (a instanceof Long x && b instanceof Long y) {
            return Long.compare(x, y);
        }
        return String.valueOf(a).compareTo(String.valueOf(b));
    }

    private final TaskControl control = new TaskControl() {

        @Override
        public boolean pausedEverywhere(TaskDefinition task) {
            return home.control().pausedEverywhere(task);
        }

        @Override
        public java.util.Set<String> pausedEverywhere(List<TaskDefinition> tasks) {
            return home.control().pausedEverywhere(tasks);
        }

        @Override
        public void pauseEverywhere(TaskDefinition task, boolean paused, String by, Instant at) {
            home.control().pauseEverywhere(task, paused, by, at);
        }

        @Override
        public boolean anyLeft(TaskDefinition task) {
            List<TaskDefinition> each = parts.of(task);
            for (int table = 0; table < each.size(); table++) {
                if (stores.get(table).control().anyLeft(each.get(table))) {
                    return true;
                }
            }
            return false;
        }
    };

    /** The home store's runs, with counts summed over every data source's fences. */
    private final TaskRuns runs = new TaskRuns() {

        private TaskRuns home() {
            return Objects.requireNonNull(home.runs(), "runs");
        }

        @Override
        public TaskRun current(TaskDefinition task) {
            return home().current(task);
        }

        @Override
        public TaskRun startFirst(TaskDefinition task, String by, Instant at, @Nullable RunRange range) {
            return home().startFirst(task, by, at, range);
        }

        @Override
        public TaskRun start(TaskDefinition task, long previous, String by, Instant at, @Nullable RunRange range) {
            return home().start(task, previous, by, at, range);
        }

        @Override
        public boolean finish(TaskDefinition task, long run, RunCounts counts, String by, Instant at) {
            return home().finish(task, run, counts, by, at);
        }

        @Override
        public Firing firstSeen(TaskDefinition task, String by, Instant at, @Nullable RunRange range) {
            return home().firstSeen(task, by, at, range);
        }

        @Override
        public Firing fire(TaskDefinition task, Instant firing, String by, Instant at, @Nullable RunRange range) {
            return home().fire(task, firing, by, at, range);
        }

        @Override
        public RunCounts counted(TaskDefinition task, long run) {
            RunCounts counts = RunCounts.NONE;
            for (TaskStore store : distinct) {
                counts =
                        counts.plus(Objects.requireNonNull(store.runs(), "runs").counted(task, run));
            }
            return counts;
        }
    };

    private int eachTable(TaskDefinition task, TableCall call) {
        List<TaskDefinition> each = parts.of(task);
        int sum = 0;
        for (int table = 0; table < each.size(); table++) {
            sum += call.apply(stores.get(table), each.get(table));
        }
        return sum;
    }

    @FunctionalInterface
    private interface TableCall {
        int apply(TaskStore store, TaskDefinition part);
    }

    /** The parts of the task last asked about, made once per task definition (the engine keeps one). */
    private static final class Parts {

        private record Made(TaskDefinition task, List<TaskDefinition> parts) {}

        private volatile @Nullable Made made;

        List<TaskDefinition> of(TaskDefinition whole) {
            Made last = made;
            if (last != null && last.task() == whole) {
                return last.parts();
            }
            List<TaskDefinition> each = new ArrayList<>();
            for (int table = 0; table < tables(whole).tables().size(); table++) {
                each.add(whole.part(table));
            }
            made = new Made(whole, List.copyOf(each));
            return each;
        }

        TaskDefinition of(TaskDefinition whole, int shard) {
            return of(whole).get(tables(whole).tableOf(shard));
        }
    }
}
