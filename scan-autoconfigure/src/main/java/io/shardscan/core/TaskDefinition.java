package io.shardscan.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Everything the engine needs to know about one task: its table, columns, status values, shards,
 * paging, workers and tiers. Validated on construction, immutable; build one with {@link #builder(String)}.
 */
public record TaskDefinition(
        String name,
        String table,
        String idColumn,
        String shardKeyColumn,
        String statusColumn,
        String retryColumn,
        String updatedAtColumn,
        String lastErrorColumn,
        String shardColumn,
        int pendingStatus,
        int doneStatus,
        int deadStatus,
        int shards,
        int pageSize,
        int workers,
        List<Tier> tiers,
        OnExhausted onExhausted,
        Duration roundTimeout,
        IndexCheck indexCheck) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
    private static final Pattern QUALIFIED = Pattern.compile(IDENTIFIER + "(\\." + IDENTIFIER + ")?");

    /** The default tiers of seed 001: never failed every 3 s, 1–5 failures 30 s, 6–15 failures 60 s. */
    public static final List<Tier> DEFAULT_TIERS = List.of(
            new Tier(0, 0, Duration.ofSeconds(3)),
            new Tier(1, 5, Duration.ofSeconds(30)),
            new Tier(6, 15, Duration.ofSeconds(60)));

    public TaskDefinition {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidTaskException("scan.tasks: task name '" + name
                    + "' must be 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit");
        }
        table = checkIdentifier(name, "table", table, QUALIFIED);
        idColumn = checkIdentifier(name, "id-column", idColumn, IDENTIFIER);
        shardKeyColumn = checkIdentifier(name, "shard-key-column", shardKeyColumn, IDENTIFIER);
        statusColumn = checkIdentifier(name, "status-column", statusColumn, IDENTIFIER);
        retryColumn = checkIdentifier(name, "retry-column", retryColumn, IDENTIFIER);
        updatedAtColumn = checkIdentifier(name, "updated-at-column", updatedAtColumn, IDENTIFIER);
        lastErrorColumn = checkIdentifier(name, "last-error-column", lastErrorColumn, IDENTIFIER);
        shardColumn = checkIdentifier(name, "shard-column", shardColumn, IDENTIFIER);
        checkAtLeast(name, "shards", shards, 1, "the number of logical shards, e.g. 64");
        checkAtLeast(name, "page-size", pageSize, 1, "the rows one fetch may return, e.g. 200");
        checkAtLeast(name, "workers", workers, 1, "the handler threads of this task, e.g. 8");
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
        if (roundTimeout == null || roundTimeout.isNegative() || roundTimeout.isZero()) {
            throw invalid(name, "round-timeout", "must be positive (was " + roundTimeout + "), e.g. 60s");
        }
    }

    /** A builder with the documented defaults, for the task {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The tier of a row that failed {@code retries} times, or the last tier when past it. */
    public Tier tierFor(int retries) {
        for (Tier tier : tiers) {
            if (tier.covers(retries)) {
                return tier;
            }
        }
        return tiers.get(tiers.size() - 1);
    }

    /** Whether a row that has now failed {@code retries} times has run out of tiers. */
    public boolean exhausted(int retries) {
        return onExhausted == OnExhausted.DEAD
                && retries > tiers.get(tiers.size() - 1).maxRetries();
    }

    /** The logical shard of a shard key: {@code key mod shards}, never negative. */
    public int shardOf(long shardKey) {
        return (int) Math.floorMod(shardKey, (long) shards);
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

    private static void checkAtLeast(String task, String property, int value, int min, String hint) {
        if (value < min) {
            throw invalid(task, property, "must be at least " + min + " (was " + value + "): set it to " + hint);
        }
    }

    private static List<Tier> checkTiers(String task, List<Tier> tiers) {
        if (tiers == null || tiers.isEmpty()) {
            throw invalid(task, "tiers", "is empty: list at least one tier, e.g. { retries: 0, interval: 3s }");
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
        private Duration roundTimeout = Duration.ofMinutes(5);
        private IndexCheck indexCheck = IndexCheck.WARN;

        private Builder(String name) {
            this.name = name;
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

        /**
         * Validates and builds.
         *
         * @throws InvalidTaskException naming the property and the fix when a setting cannot work
         */
        public TaskDefinition build() {
            if (table == null) {
                throw invalid(name, "table", "is not set: name the table to scan");
            }
            return new TaskDefinition(
                    name,
                    table,
                    idColumn,
                    shardKeyColumn == null ? idColumn : shardKeyColumn,
                    statusColumn,
                    retryColumn,
                    updatedAtColumn,
                    lastErrorColumn,
                    shardColumn,
                    pendingStatus,
                    doneStatus,
                    deadStatus,
                    shards,
                    pageSize,
                    workers,
                    tiers,
                    onExhausted,
                    roundTimeout,
                    indexCheck);
        }
    }
}
