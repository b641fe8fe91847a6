package io.shardscan.core.task;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Everything the engine needs to know about one task: its table, {@link Columns columns}, {@link
 * Statuses status values}, shards, {@link Rounds rounds}, tiers and which rows of the table are its
 * own ({@code match}). Validated on construction, immutable; build one with {@link #builder(String)}.
 *
 * <p>With a due-at column ({@link Columns#dueAt()}) a row is due once the database's clock has reached that column's
 * time plus {@code delay}; rows are then fetched, and run per key, in due order, then id order.
 * {@code rowColumns} says which of the table's columns a fetch reads: every one, or those the
 * handler's row type names plus the engine's own. A task whose run ends ({@code run}) may have a
 * {@code schedule}, whose firings start its runs.
 */
public record TaskDefinition(
        String name,
        String table,
        Columns columns,
        Statuses statuses,
        int shards,
        Rounds rounds,
        List<Tier> tiers,
        OnExhausted onExhausted,
        IndexCheck indexCheck,
        Ordering ordering,
        List<Match> match,
        MatchOverlap matchOverlap,
        Duration delay,
        @Nullable Archive archive,
        @Nullable EndpointRules endpoints,
        RowColumns rowColumns,
        RunMode run,
        @Nullable Schedule schedule,
        @Nullable Tables tables) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
    private static final Pattern QUALIFIED = Pattern.compile(IDENTIFIER + "(\\." + IDENTIFIER + ")?");

    /** The default tiers of seed 001: never failed every 3 s, 1–5 failures 30 s, 6–15 failures 60 s. */
    public static final List<Tier> DEFAULT_TIERS = List.of(
            new Tier(0, 0, Duration.ofSeconds(3)),
            new Tier(1, 5, Duration.ofSeconds(30)),
            new Tier(6, 15, Duration.ofSeconds(60)));

    /**
     * The shortest tier interval: an empty tier is fetched that often, so a number meant as seconds but
     * read as milliseconds would poll the table hundreds of times a second.
     */
    public static final Duration MIN_TIER_INTERVAL = Duration.ofMillis(100);

    /** The highest {@code priority} a task may have; a task aged past its {@code max-wait} ranks above it. */
    public static final int MAX_PRIORITY = 100;

    public TaskDefinition {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidTaskException("scan.tasks: task name '" + name
                    + "' must be 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit");
        }
        checkIdentifier(name, "table", table, QUALIFIED);
        Objects.requireNonNull(columns, "columns");
        String idColumn = checkIdentifier(name, "id-column", columns.id(), IDENTIFIER);
        checkIdentifier(name, "shard-key-column", columns.shardKey(), IDENTIFIER);
        String statusColumn = checkIdentifier(name, "status-column", columns.status(), IDENTIFIER);
        String retryColumn = checkIdentifier(name, "retry-column", columns.retry(), IDENTIFIER);
        String updatedAtColumn = checkIdentifier(name, "updated-at-column", columns.updatedAt(), IDENTIFIER);
        String lastErrorColumn = checkIdentifier(name, "last-error-column", columns.lastError(), IDENTIFIER);
        checkIdentifier(name, "shard-column", columns.shard(), IDENTIFIER);
        checkAtLeast(name, "shards", shards, 1, "the number of logical shards, e.g. 64");
        Objects.requireNonNull(rounds, "rounds");
        checkAtLeast(name, "page-size", rounds.pageSize(), 1, "the rows one fetch may return, e.g. 200");
        int workers = rounds.workers();
        checkAtLeast(name, "workers", workers, 1, "the handler threads of this task, e.g. 8");
        Objects.requireNonNull(statuses, "statuses");
        int pendingStatus = statuses.pending();
        int doneStatus = statuses.done();
        int deadStatus = statuses.dead();
        if (pendingStatus == doneStatus || pendingStatus == deadStatus || doneStatus == deadStatus) {
            throw invalid(
                    name,
                    "status",
                    "values pending=" + pendingStatus + ", done=" + doneStatus + ", dead=" + deadStatus
                            + " must differ: give each state its own value");
        }
        tiers = checkTiers(name, tiers);
        Objects.requireNonNull(onExhausted, "onExhausted");
        Objects.requireNonNull(indexCheck, "indexCheck");
        Duration roundTimeout = rounds.timeout();
        Duration handlerTimeout = rounds.handlerTimeout();
        checkPositive(name, "round-timeout", roundTimeout, "5m");
        Objects.requireNonNull(ordering, "ordering");
        checkPositive(name, "commit-interval", rounds.commitInterval(), "250ms");
        checkPositive(name, "handler-timeout", handlerTimeout, "5m");
        if (handlerTimeout.compareTo(roundTimeout) >= 0) {
            throw invalid(
                    name,
                    "handler-timeout",
                    "(" + handlerTimeout + ") must be shorter than scan.tasks." + name + ".round-timeout ("
                            + roundTimeout
                            + "), or the round gives up on a hung call before its own timeout can: lower"
                            + " handler-timeout or raise round-timeout");
        }
        match = checkMatch(name, match, List.of(statusColumn, retryColumn, updatedAtColumn, lastErrorColumn));
        Objects.requireNonNull(matchOverlap, "matchOverlap");
        checkDue(name, columns.dueAt(), delay);
        if (archive != null) {
            checkArchive(name, table, archive);
        }
        int priority = rounds.priority();
        if (priority < 0 || priority > MAX_PRIORITY) {
            throw invalid(
                    name,
                    "priority",
                    "must be between 0 and " + MAX_PRIORITY + " (was " + priority + "): the task with the higher"
                            + " priority gets free workers of scan.max-workers first, e.g. 10");
        }
        Duration maxWait = rounds.maxWait();
        if (maxWait != null && (maxWait.isNegative() || maxWait.isZero())) {
            throw invalid(
                    name,
                    "max-wait",
                    "must be a positive duration (was " + maxWait + "), e.g. 5s; leave it unset for a task that"
                            + " never ages");
        }
        if (endpoints != null) {
            endpoints.check(name, workers);
        }
        Objects.requireNonNull(rowColumns, "rowColumns");
        KeyType shardKeyType = Objects.requireNonNull(columns.shardKeyType(), "shardKeyType");
        KeyType idType = Objects.requireNonNull(columns.idType(), "idType");
        if (columns.shardKey().equalsIgnoreCase(idColumn) && shardKeyType != idType) {
            throw invalid(
                    name,
                    "id-type",
                    "is " + property(idType) + " but shard-key-type is " + property(shardKeyType) + ", and both name"
                            + " the column " + idColumn + ": set one type for it (id-type: text also makes the"
                            + " shard key text)");
        }
        checkRun(name, run);
        checkTables(name, table, shards, archive, tables);
        if (schedule != null && !run.ends()) {
            throw invalid(
                    name,
                    "schedule",
                    "starts a run of the task at each firing, but the task runs forever (scan.tasks." + name
                            + ".run is forever or unset), which has no runs to start: set scan.tasks." + name
                            + ".run: until-empty, so that each firing processes the rows pending then and ends, or"
                            + " remove schedule");
        }
    }

    /** A sharded task's tables are plain names, the first is its table, and its shards are theirs. */
    private static void checkTables(
            String name, String table, int shards, @Nullable Archive archive, @Nullable Tables tables) {
        if (tables == null) {
            return;
        }
        for (Tables.Table each : tables.tables()) {
            checkIdentifier(name, "tables", each.name(), QUALIFIED);
        }
        if (!tables.tables().get(0).name().equals(table) || tables.shards() != shards) {
            throw new IllegalArgumentException("task " + name + ": table " + table + " and " + shards + " shards are"
                    + " not those of its tables " + tables);
        }
        if (archive != null) {
            throw invalid(
                    name,
                    "archive",
                    "is set, but the task scans several tables (scan.tasks." + name + ".tables), which do not archive"
                            + " yet: remove archive, or archive each table with a task of its own");
        }
    }

    /** A status-column task runs forever or until empty; once and follow cover an id space, which is range mode's. */
    private static void checkRun(String name, RunMode run) {
        Objects.requireNonNull(run, "run");
        if (run == RunMode.ONCE || run == RunMode.FOLLOW) {
            throw invalid(
                    name,
                    "run",
                    "is " + run.property() + ", which only a range task has: for a job over the table's ids"
                            + " (no status column needed) set scan.tasks." + name + ".mode: range; a task with a"
                            + " status column runs forever (the default) or until-empty (it ends once no pending row"
                            + " is left): set run: until-empty, or remove run");
        }
    }

    /** A builder with the documented defaults, for the task {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * This task with a fetch that reads {@code rowColumns}, as its handler's row type needs them.
     *
     * @return this task when it reads those columns already
     */
    public TaskDefinition withRowColumns(RowColumns rowColumns) {
        if (rowColumns.equals(this.rowColumns)) {
            return this;
        }
        return copy(table, shards, rowColumns, tables);
    }

    /** This task with another table, shard count, fetched columns or tables; the rest as it is. */
    private TaskDefinition copy(String table, int shards, RowColumns rowColumns, @Nullable Tables tables) {
        return new TaskDefinition(
                name,
                table,
                columns,
                statuses,
                shards,
                rounds,
                tiers,
                onExhausted,
                indexCheck,
                ordering,
                match,
                matchOverlap,
                delay,
                archive,
                endpoints,
                rowColumns,
                run,
                schedule,
                tables);
    }

    /** The rules of this task's tiers: what a failure means and which rows a tier fetches. */
    public RetryRules retryRules() {
        return new RetryRules(tiers, onExhausted);
    }

    /** The column that names each row's receiver, or {@code null} when the task has no endpoints. */
    public @Nullable String endpointColumn() {
        return endpoints == null ? null : endpoints.column();
    }

    /** Whether rows wait for a due time: the task has a {@code dueAtColumn}. */
    public boolean delayed() {
        return columns.dueAt() != null;
    }

    /**
     * The logical shard of a whole-number shard key: {@code key mod shards}, never negative (for a
     * text key see {@link TextKeys#shardOf}).
     */
    public int shardOf(long shardKey) {
        return (int) Math.floorMod(shardKey, (long) shardsPerTable());
    }

    /** The shards of each of the task's tables: {@link #shards()} for a task of one table. */
    public int shardsPerTable() {
        return tables == null ? shards : tables.perTable();
    }

    /**
     * Logical shard {@code shard}'s shard within its table, the {@code shard key mod shardsPerTable} class
     * its rows are: {@code shard} itself for a task of one table (see {@link Tables}).
     */
    public int localShard(int shard) {
        return tables == null ? shard : tables.localShard(shard);
    }

    /**
     * Whether the task's shards split in place when its shard count changes to a multiple: shard
     * {@code s} of {@code K} holds part of the rows of shard {@code s mod d} of every count {@code d}
     * dividing {@code K}. True for a task of one table; a sharded task's logical shards are numbered
     * per table, so they do not.
     */
    public boolean splitsShards() {
        return tables == null;
    }

    /**
     * The parents of {@code shard} in the smaller counts that divide {@link #shards()}: {@code shard
     * mod d} for each such {@code d}, those other than {@code shard} itself, ascending.
     */
    public List<Integer> parentShards(int shard) {
        List<Integer> parents = new ArrayList<>();
        for (int d = 1; d < shards; d++) {
            int parent = shard % d;
            if (shards % d == 0 && parent != shard && !parents.contains(parent)) {
                parents.add(parent);
            }
        }
        parents.sort(Comparator.naturalOrder());
        return parents;
    }

    /**
     * Whether shard {@code parent} of a task of {@code parentShards} shards covers rows of {@code shard}
     * of this task's count: a smaller count that divides this one, of which {@code parent} is the
     * shard's parent.
     */
    public boolean coveredBy(int shard, int parent, int parentShards) {
        return parentShards > 0
                && parentShards < shards
                && shards % parentShards == 0
                && shard % parentShards == parent;
    }

    /**
     * The part of a sharded task that table {@code table} (its position in {@link #tables()}) holds: this
     * task on that table alone, with that table's shards, to which logical shards of that table are given.
     *
     * @throws IllegalStateException when the task has no {@link #tables()}
     */
    public TaskDefinition part(int table) {
        if (tables == null) {
            throw new IllegalStateException("task " + name + " scans one table");
        }
        Tables only = tables.only(table);
        return copy(only.tables().get(0).name(), only.shards(), rowColumns, only);
    }

    private static String checkIdentifier(String task, String property, String value, Pattern pattern) {
        if (value == null || !pattern.matcher(value).matches()) {
            throw invalid(
                    task,
                    property,
                    "'" + value + "' is not a plain SQL identifier: use letters, digits and" + " '_' only"
                            + (pattern == QUALIFIED ? ", optionally schema-qualified as schema.table" : ""));
        }
        return value;
    }

    private static void checkDue(String task, @Nullable String dueAtColumn, Duration delay) {
        if (dueAtColumn != null) {
            checkIdentifier(task, "due-at-column", dueAtColumn, IDENTIFIER);
        }
        if (delay == null || delay.isNegative()) {
            throw invalid(
                    task,
                    "delay",
                    "must be zero or a positive duration (was " + delay + "): how long after its due-at-column"
                            + " a row becomes due, e.g. 15m");
        }
        if (dueAtColumn == null && !delay.isZero()) {
            throw invalid(
                    task,
                    "delay",
                    "(" + delay + ") is set but scan.tasks." + task + ".due-at-column is not: name the timestamp"
                            + " column the delay counts from (e.g. created_at), or remove delay");
        }
    }

    private static void checkPositive(String task, String property, Duration value, String example) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw invalid(task, property, "must be a positive duration (was " + value + "), e.g. " + example);
        }
    }

    private static void checkAtLeast(String task, String property, int value, int min, String hint) {
        if (value < min) {
            throw invalid(task, property, "must be at least " + min + " (was " + value + "): set it to " + hint);
        }
    }

    /**
     * The match's columns must be plain identifiers, each once, and none the engine writes: a row
     * whose match changed after a failure would leave the task before it is done or dead.
     */
    private static List<Match> checkMatch(String task, List<Match> match, List<String> written) {
        Objects.requireNonNull(match, "match");
        List<String> seen = new ArrayList<>();
        for (Match condition : match) {
            String column = condition.column();
            String property = "match." + column;
            checkIdentifier(task, property, column, IDENTIFIER);
            if (seen.contains(column.toLowerCase(Locale.ROOT))) {
                throw invalid(task, "match", "names column " + column + " twice: give each column once");
            }
            seen.add(column.toLowerCase(Locale.ROOT));
            if (written.stream().anyMatch(column::equalsIgnoreCase)) {
                throw invalid(
                        task,
                        property,
                        "matches a column the engine writes (status, retries, update time or last error), so a"
                                + " row would leave the task when it fails: match on columns that stay put, such as"
                                + " the row's kind");
            }
            if (condition.values().stream().anyMatch(String::isEmpty)) {
                throw invalid(
                        task,
                        property,
                        "has an empty value: list values only, or write null alone to match rows where " + column
                                + " IS NULL");
            }
        }
        return List.copyOf(match);
    }

    private static void checkArchive(String task, String table, Archive archive) {
        checkPositive(task, "archive.after", archive.after(), "7d");
        checkAtLeast(task, "archive.batch", archive.batch(), 1, "the rows one archive batch moves, e.g. 500");
        if (archive.pause() == null || archive.pause().isNegative()) {
            throw invalid(task, "archive.pause", "must be zero or a positive duration (was " + archive.pause() + ")");
        }
        if (archive.table() != null) {
            checkIdentifier(task, "archive.to", archive.table(), QUALIFIED);
            if (archive.table().equalsIgnoreCase(table)) {
                throw invalid(
                        task,
                        "archive.to",
                        "'" + archive.table() + "' is the scanned table itself: name an archive table with the"
                                + " same columns, or '" + Archive.DELETE + "'");
            }
        }
    }

    private static List<Tier> checkTiers(String task, List<Tier> tiers) {
        if (tiers == null || tiers.isEmpty()) {
            throw invalid(task, "tiers", "is empty: list at least one tier, e.g. { retries: 0, interval: 3s }");
        }
        for (int i = 0; i < tiers.size(); i++) {
            Duration interval = tiers.get(i).interval();
            if (interval.compareTo(MIN_TIER_INTERVAL) < 0) {
                throw invalid(
                        task,
                        "tiers[" + i + "].interval",
                        "is " + interval.toMillis() + "ms, below the floor of " + MIN_TIER_INTERVAL.toMillis()
                                + "ms: an empty tier is fetched that often, so write it with a unit, e.g. 5s (a"
                                + " number without a unit means seconds)");
            }
        }
        List<Tier> sorted = new ArrayList<>(tiers);
        sorted.sort(Comparator.comparingInt(Tier::minRetries));
        int expected = 0;
        for (Tier tier : sorted) {
            if (tier.minRetries() < expected) {
                throw invalid(
                        task,
                        "tiers",
                        "overlap at retries " + tier.label() + ": each retry count must belong to exactly one tier");
            }
            if (tier.minRetries() > expected) {
                throw invalid(
                        task,
                        "tiers",
                        "leave retries " + expected + "-" + (tier.minRetries() - 1)
                                + " uncovered: tiers must run from 0 without gaps");
            }
            expected = tier.maxRetries() + 1;
        }
        return List.copyOf(sorted);
    }

    private static String property(KeyType type) {
        return type.name().toLowerCase(Locale.ROOT);
    }

    static InvalidTaskException invalid(String task, String property, String problem) {
        return new InvalidTaskException("scan.tasks." + task + "." + property + " " + problem);
    }

    /** Collects a task's settings; every setter is optional except {@link #table(String)}. */
    public static final class Builder {
        private final String name;
        private String table;
        private String idColumn = "id";
        private String shardKeyColumn;
        private String statusColumn = "status";
        private String retryColumn = "retry_count";
        private String updatedAtColumn = "updated_at";
        private String lastErrorColumn = "last_error";
        private String shardColumn = "scan_shard";
        private int pendingStatus = 0;
        private int doneStatus = 1;
        private int deadStatus = 2;
        private int shards = 64;
        private int pageSize = 200;
        private int workers = 8;
        private List<Tier> tiers = DEFAULT_TIERS;
        private OnExhausted onExhausted = OnExhausted.DEAD;
        private Duration roundTimeout = Duration.ofMinutes(10);
        private IndexCheck indexCheck = IndexCheck.WARN;
        private Ordering ordering;
        private Duration commitInterval = Duration.ofMillis(250);
        private Duration handlerTimeout = Duration.ofMinutes(5);
        private List<Match> match = List.of();
        private MatchOverlap matchOverlap = MatchOverlap.REFUSED;
        private @Nullable String dueAtColumn;
        private Duration delay = Duration.ZERO;
        private @Nullable Archive archive;
        private int priority = 0;
        private @Nullable Duration maxWait;
        private @Nullable EndpointRules endpoints;
        private RowColumns rowColumns = RowColumns.ALL;
        private RunMode run = RunMode.FOREVER;
        private @Nullable Schedule schedule;
        private @Nullable KeyType shardKeyType;
        private @Nullable KeyType idType;
        private @Nullable List<Tables.Table> tables;

        private Builder(String name) {
            this.name = name;
        }

        /**
         * The physical tables of a sharded task, scanned as one task: then {@link #shards(int)} is each table's
         * shard count, the task's logical shards are every table's (see {@link Tables}), and {@link
         * #table(String)} need not be set.
         */
        public Builder tables(@Nullable List<Tables.Table> tables) {
            this.tables = tables == null || tables.isEmpty() ? null : List.copyOf(tables);
            if (this.tables != null) {
                this.table = this.tables.get(0).name();
            }
            return this;
        }

        public Builder table(String table) {
            this.table = table;
            return this;
        }

        public Builder idColumn(String idColumn) {
            this.idColumn = idColumn;
            return this;
        }

        public Builder shardKeyColumn(String shardKeyColumn) {
            this.shardKeyColumn = shardKeyColumn;
            return this;
        }

        public Builder statusColumn(String statusColumn) {
            this.statusColumn = statusColumn;
            return this;
        }

        public Builder retryColumn(String retryColumn) {
            this.retryColumn = retryColumn;
            return this;
        }

        public Builder updatedAtColumn(String updatedAtColumn) {
            this.updatedAtColumn = updatedAtColumn;
            return this;
        }

        public Builder lastErrorColumn(String lastErrorColumn) {
            this.lastErrorColumn = lastErrorColumn;
            return this;
        }

        public Builder shardColumn(String shardColumn) {
            this.shardColumn = shardColumn;
            return this;
        }

        public Builder statuses(int pending, int done, int dead) {
            this.pendingStatus = pending;
            this.doneStatus = done;
            this.deadStatus = dead;
            return this;
        }

        public Builder shards(int shards) {
            this.shards = shards;
            return this;
        }

        public Builder pageSize(int pageSize) {
            this.pageSize = pageSize;
            return this;
        }

        public Builder workers(int workers) {
            this.workers = workers;
            return this;
        }

        public Builder tiers(List<Tier> tiers) {
            this.tiers = tiers;
            return this;
        }

        public Builder onExhausted(OnExhausted onExhausted) {
            this.onExhausted = onExhausted;
            return this;
        }

        public Builder roundTimeout(Duration roundTimeout) {
            this.roundTimeout = roundTimeout;
            return this;
        }

        public Builder indexCheck(IndexCheck indexCheck) {
            this.indexCheck = indexCheck;
            return this;
        }

        /** Per-key order or none; unset, the order is kept whenever the shard key is not the id column. */
        public Builder ordering(Ordering ordering) {
            this.ordering = ordering;
            return this;
        }

        public Builder commitInterval(Duration commitInterval) {
            this.commitInterval = commitInterval;
            return this;
        }

        public Builder handlerTimeout(Duration handlerTimeout) {
            this.handlerTimeout = handlerTimeout;
            return this;
        }

        /** Which rows of the table are this task's: every condition must hold; none, every row. */
        public Builder match(List<Match> match) {
            this.match = match;
            return this;
        }

        /** Whether the task may take pending rows another task on its table matches too; refused unless set. */
        public Builder matchOverlap(MatchOverlap matchOverlap) {
            this.matchOverlap = matchOverlap;
            return this;
        }

        /** The timestamp column before which a row is not due; unset, every pending row is due. */
        public Builder dueAtColumn(@Nullable String dueAtColumn) {
            this.dueAtColumn = dueAtColumn;
            return this;
        }

        /** How long after its due-at column a row becomes due; zero by default. */
        public Builder delay(Duration delay) {
            this.delay = delay;
            return this;
        }

        /** Archives finished rows as {@code archive} says; {@code null} (the default) never archives. */
        public Builder archive(@Nullable Archive archive) {
            this.archive = archive;
            return this;
        }

        /** Which task gets free workers of the node's budget first: higher first, from 0 to {@link #MAX_PRIORITY}. */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /**
         * How long the task's oldest due row may wait for the node's budget before the task is served
         * ahead of every priority; {@code null}: never.
         */
        public Builder maxWait(@Nullable Duration maxWait) {
            this.maxWait = maxWait;
            return this;
        }

        /** How long a run of the task lasts; {@link RunMode#FOREVER} unless set. */
        public Builder run(RunMode run) {
            this.run = run;
            return this;
        }

        /**
         * When the task's runs start by themselves: each firing starts one run, on one node, unless the
         * current run still runs; {@code null} (the default): only {@code ScanTasks.start} starts one
         * after the first. Needs a run that ends ({@link RunMode#UNTIL_EMPTY}).
         */
        public Builder schedule(@Nullable Schedule schedule) {
            this.schedule = schedule;
            return this;
        }

        /** What the shard-key column holds; unset, a whole number, or the id's type when it is the id column. */
        public Builder shardKeyType(@Nullable KeyType shardKeyType) {
            this.shardKeyType = shardKeyType;
            return this;
        }

        /** What the id column holds; unset, a whole number, or the shard key's type when it is the shard key. */
        public Builder idType(@Nullable KeyType idType) {
            this.idType = idType;
            return this;
        }

        /** The receivers of the rows and their blacklist; unset, the task has no endpoints. */
        public Builder endpoints(@Nullable EndpointRules endpoints) {
            this.endpoints = endpoints;
            return this;
        }

        /** Which columns the fetch reads; {@link RowColumns#ALL} (the default) for every column. */
        public Builder rowColumns(RowColumns rowColumns) {
            this.rowColumns = rowColumns;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws InvalidTaskException naming the property and the fix when a setting cannot work
         */
        public TaskDefinition build() {
            if (table == null) {
                throw invalid(name, "table", "is not set: name the table to scan");
            }
            String shardKey = shardKeyColumn == null ? idColumn : shardKeyColumn;
            // one column, one type: the type set for the id or the shard key is the other's when they are one
            boolean oneColumn = shardKey.equalsIgnoreCase(idColumn);
            KeyType keyType =
                    shardKeyType != null ? shardKeyType : oneColumn && idType != null ? idType : KeyType.WHOLE;
            KeyType ids = idType != null ? idType : oneColumn ? keyType : KeyType.WHOLE;
            Tables sharded;
            try {
                sharded = tables == null ? null : new Tables(tables, shards);
            } catch (IllegalArgumentException e) {
                throw invalid(name, tables == null || shards >= 1 ? "tables" : "shards", e.getMessage());
            }
            return new TaskDefinition(
                    name,
                    table,
                    new Columns(
                            idColumn,
                            shardKey,
                            statusColumn,
                            retryColumn,
                            updatedAtColumn,
                            lastErrorColumn,
                            shardColumn,
                            dueAtColumn,
                            ids,
                            keyType),
                    new Statuses(pendingStatus, doneStatus, deadStatus),
                    sharded == null ? shards : sharded.shards(),
                    new Rounds(pageSize, workers, roundTimeout, commitInterval, handlerTimeout, priority, maxWait),
                    tiers,
                    onExhausted,
                    indexCheck,
                    ordering != null
                            ? ordering
                            : shardKey.equalsIgnoreCase(idColumn) ? Ordering.NONE : Ordering.PER_KEY,
                    match,
                    matchOverlap,
                    delay,
                    archive,
                    endpoints,
                    rowColumns,
                    run,
                    schedule,
                    sharded);
        }
    }
}
