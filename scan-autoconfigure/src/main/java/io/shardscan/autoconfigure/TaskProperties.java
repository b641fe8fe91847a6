package io.shardscan.autoconfigure;

import io.shardscan.core.task.IndexCheck;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.Match;
import io.shardscan.core.task.MatchOverlap;
import io.shardscan.core.task.OnExhausted;
import io.shardscan.core.task.Ordering;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.RunMode;
import io.shardscan.core.task.Schedule;
import io.shardscan.core.task.Tables;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.Tier;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationUnit;

/** Configuration of one task, under {@code scan.tasks.<name>.*}. */
public class TaskProperties {

    /** The table to scan, optionally schema-qualified. */
    private @Nullable String table;

    /** The tables of a sharded task, scanned as one task instead of table: names separated by commas, each with at most one numbered range, e.g. tb_order_{0000..1023}; shards is then each table's shard count. */
    private @Nullable String tables;

    /** Where the tables live, by DataSource bean name: each bean's tables, in the form of tables, e.g. ds0: tb_order_{0000..0511}; unset, every table is in Shardscan's own DataSource. */
    private Map<String, String> dataSources = new LinkedHashMap<>();

    /** The primary-key column the scan pages by: a whole number, or text or a UUID with id-type text. */
    private String idColumn = "id";

    /** The column whose rows stay on one shard and in order; defaults to the id column. */
    private @Nullable String shardKeyColumn;

    /** What the shard-key column holds: whole or text (text or a UUID); unset, the id's type when it is the id. */
    private @Nullable KeyType shardKeyType;

    /** What the id column holds: whole or text (text or a UUID); unset, the shard key's type when that is the id. */
    private @Nullable KeyType idType;

    /** The column holding the row's state: pending, done or dead. */
    private String statusColumn = "status";

    /** The column counting the row's failed attempts. */
    private String retryColumn = "retry_count";

    /** The timestamp column of the row's last update, which times the retry back-off. */
    private String updatedAtColumn = "updated_at";

    /** The text column that keeps the row's last error. */
    private String lastErrorColumn = "last_error";

    /** The column that holds each row's logical shard, for the index that keeps fetches a range scan. */
    private String shardColumn = "scan_shard";

    /** The status value of rows that still need work. */
    private int pendingStatus = 0;

    /** The status value written when a row is done. */
    private int doneStatus = 1;

    /** The status value written when a row is given up. */
    private int deadStatus = 2;

    /** The number of logical shards, fixed for the life of the table. */
    private int shards = 64;

    /** The most rows one fetch returns. */
    private int pageSize = 200;

    /** The number of handler threads of this task on each node. */
    private int workers = 8;

    /** The failure tiers by retry count, each with its scan interval and retry back-off. */
    private List<TierProperties> tiers = new ArrayList<>(List.of(
            new TierProperties("0", Duration.ofSeconds(3)),
            new TierProperties("1-5", Duration.ofSeconds(30)),
            new TierProperties("6-15", Duration.ofSeconds(60))));

    /** What happens to a row that fails past the last tier: dead or keep-retrying. */
    private OnExhausted onExhausted = OnExhausted.DEAD;

    /** How long a round waits for its handlers; then what finished is written back and the shard moves on. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration roundTimeout = Duration.ofMinutes(10);

    /** How long one handler call may run; then its rows are recorded failed and its worker replaced. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration handlerTimeout = Duration.ofMinutes(5);

    /** How often a long round writes back what finished, and a range task commits its position, bounding what a crash or a freeze runs again. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration commitInterval = Duration.ofMillis(250);

    /** Whether a failed row holds back its key's later rows: per-key, or none; unset, per-key when the shard key is not the id. */
    private @Nullable Ordering ordering;

    /** On PostgreSQL: whether an insert trigger wakes the shard's owner; startup prints the trigger's DDL when it is missing. */
    private boolean wakeOnInsert = false;

    /** What startup does when the table lacks the index the fetch needs: fail, warn or off. */
    private IndexCheck indexCheck = IndexCheck.WARN;

    /** Which rows of the table are this task's: per column a value, a list of values or null, e.g. biz_type: 3; every column must match. */
    private Map<String, List<String>> match = new LinkedHashMap<>();

    /** Whether this task may take pending rows that another task on its table matches too: refused or allowed. */
    private MatchOverlap matchOverlap = MatchOverlap.REFUSED;

    /** The timestamp column before which a row is not due, e.g. created_at; unset, every pending row is due. */
    private @Nullable String dueAtColumn;

    /** How long after its due-at column a row becomes due; needs a unit, e.g. 15m. */
    private Duration delay = Duration.ZERO;

    /** Moving (or deleting) finished rows older than a given age; off unless archive.after is set. */
    private final ArchiveProperties archive = new ArchiveProperties();

    /** Which task gets free workers of scan.max-workers first: the higher, from 0 to 100. */
    private int priority = 0;

    /** How long the oldest due row may wait for scan.max-workers before the task goes first; needs a unit; unset, never. */
    private @Nullable Duration maxWait;

    /** A preset for pushing rows to receivers, transfer (lossy) or sync (must arrive), whose settings can be overridden; or range, to scan by id ranges without a status column. */
    private @Nullable TaskMode mode;

    /** With mode range: how many ids one claim of the shared cursor covers. */
    private long rangeSize = RangeTask.DEFAULT_RANGE_SIZE;

    /** With mode range: how long a range's position may stand still before another node takes it over; needs a unit. */
    private Duration stallTimeout = RangeTask.DEFAULT_STALL_TIMEOUT;

    /** With mode range and run follow: how long after a higher id showed a lower one may still commit and run; a range is done only that long after the ids passed its end. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration followGrace = RangeTask.DEFAULT_FOLLOW_GRACE;

    /** How long a run lasts: forever, or until-empty (ends once no pending row is left); or with mode range, once (cover the ids found at start, then end DONE) or follow (then keep running new ids); unset, forever, or once with mode range. */
    private @Nullable RunMode run;

    /** Whether this node runs the task; false leaves it to the other nodes (set it per node, e.g. SCAN_TASKS_<NAME>_ENABLED=false). */
    private boolean enabled = true;

    /** The node tags (scan.node-tags) a node must have, every one, to run the task; empty for every node. */
    private List<String> nodeTags = new ArrayList<>();
    /** When the task's runs start by themselves: a cron in a zone, or a fixed rate; each firing starts one run on one node, and is skipped while the last run still runs; needs run until-empty, or once with mode range. */
    private final ScheduleProperties schedule = new ScheduleProperties();

    /** The column naming each row's receiver (a store id, a host); its rows share a lane and a two-level blacklist. */
    private @Nullable String endpointColumn;

    /** Level 1 of the endpoint blacklist: after how many endpoint-down failures an endpoint is skipped on this node for the pass. */
    private final BlacklistLevel1Properties level1 = new BlacklistLevel1Properties();

    /** Level 2 of the endpoint blacklist: how many level-1 trips within which window ban an endpoint on every node, and for how long. */
    private final BlacklistLevel2Properties level2 = new BlacklistLevel2Properties();

    /** A call that takes longer marks its endpoint slow; needs a unit, e.g. 1s or 500ms. */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration slowCall = Duration.ofSeconds(1);

    /** The share of the task's workers one slow endpoint may hold, above 0 and at most 1. */
    private double slowShare = 0.25;

    // the properties set explicitly, which a mode's preset leaves alone
    private final Set<String> explicitlySet = new HashSet<>();

    /**
     * The validated task definition of these settings.
     *
     * @param name the task name, the key under {@code scan.tasks}
     * @throws InvalidTaskException naming the property and the fix when a setting cannot work
     */
    public TaskDefinition toDefinition(String name) {
        return definition(name, run == null ? RunMode.FOREVER : run, schedule.toSchedule(name));
    }

    private TaskDefinition definition(String name, RunMode run, @Nullable Schedule schedule) {
        return TaskDefinition.builder(name)
                .table(table)
                .tables(tables(name))
                .idColumn(idColumn)
                .shardKeyColumn(shardKeyColumn)
                .shardKeyType(shardKeyType)
                .idType(idType)
                .statusColumn(statusColumn)
                .retryColumn(retryColumn)
                .updatedAtColumn(updatedAtColumn)
                .lastErrorColumn(lastErrorColumn)
                .shardColumn(shardColumn)
                .statuses(pendingStatus, doneStatus, deadStatus)
                .shards(shards)
                .pageSize(pageSize)
                .workers(workers)
                .tiers(tiers(name))
                .onExhausted(preset("on-exhausted", onExhausted, mode == null ? null : mode.onExhausted))
                .roundTimeout(roundTimeout)
                .handlerTimeout(preset("handler-timeout", handlerTimeout, mode == null ? null : mode.handlerTimeout))
                .commitInterval(commitInterval)
                .ordering(ordering)
                .indexCheck(indexCheck)
                .match(match(name))
                .matchOverlap(matchOverlap)
                .dueAtColumn(dueAtColumn)
                .delay(delay)
                .archive(archive.toArchive(name))
                .priority(priority)
                .maxWait(maxWait)
                .endpoints(endpoints(name))
                .run(run)
                .schedule(schedule)
                .build();
    }

    /**
     * The validated range task of these settings.
     *
     * @param name the task name, the key under {@code scan.tasks}
     * @throws InvalidTaskException naming the property and the fix when a setting cannot work
     */
    public RangeTask toRangeTask(String name) {
        if (mode != TaskMode.RANGE) {
            throw new InvalidTaskException(
                    "scan.tasks." + name + " is not in range mode: set scan.tasks." + name + ".mode=range");
        }
        if (endpointColumn != null || dueAtColumn != null || !match.isEmpty() || archive.getAfter() != null) {
            throw new InvalidTaskException("scan.tasks." + name + ".mode=range reads every row by id once and never"
                    + " writes the table: remove endpoint-column, due-at-column, match and archive from the task,"
                    + " or use a status-column task");
        }
        if (tables != null) {
            throw new InvalidTaskException("scan.tasks." + name + ".mode=range covers one table's ids, but tables"
                    + " names several: run a range task per table, or a status-column task over the tables");
        }
        // the definition carries the table, paging and tiers; the range task its run and schedule
        return new RangeTask(
                definition(name, RunMode.FOREVER, null),
                rangeSize,
                stallTimeout,
                run == null ? RunMode.ONCE : run,
                followGrace,
                schedule.toSchedule(name));
    }

    /** Whether the task runs in range mode. */
    public boolean rangeMode() {
        return mode == TaskMode.RANGE;
    }

    private <T> T preset(String property, T value, @Nullable T preset) {
        return preset == null || explicitlySet.contains(property) ? value : preset;
    }

    private io.shardscan.core.task.@Nullable EndpointRules endpoints(String name) {
        if (endpointColumn == null) {
            List<String> set = new ArrayList<>(explicitlySet.stream()
                    .filter(p -> p.startsWith("slow"))
                    .sorted()
                    .toList());
            if (level1.afterSet()) {
                set.add(0, "level1.after");
            }
            if (level2.anySet()) {
                set.add(0, "level2");
            }
            if (!set.isEmpty()) {
                throw new InvalidTaskException("scan.tasks." + name + "." + set.get(0)
                        + " is set but scan.tasks." + name + ".endpoint-column is not: name the column of each"
                        + " row's receiver (e.g. store_id), or remove " + set);
            }
            return null;
        }
        return io.shardscan.core.task.EndpointRules.of(endpointColumn)
                .withLevel1After(
                        mode == null || mode == TaskMode.RANGE || level1.afterSet()
                                ? level1.getAfter()
                                : mode.level1After)
                .withLevel2(level2.getTrips(), level2.getWindow(), level2.getBan())
                .withSlow(slowCall, slowShare);
    }

    public @Nullable TaskMode getMode() {
        return mode;
    }

    public void setMode(@Nullable TaskMode mode) {
        this.mode = mode;
    }

    public long getRangeSize() {
        return rangeSize;
    }

    public void setRangeSize(long rangeSize) {
        this.rangeSize = rangeSize;
    }

    public Duration getStallTimeout() {
        return stallTimeout;
    }

    public void setStallTimeout(Duration stallTimeout) {
        this.stallTimeout = stallTimeout;
    }

    public Duration getFollowGrace() {
        return followGrace;
    }

    public void setFollowGrace(Duration followGrace) {
        this.followGrace = followGrace;
    }

    public @Nullable RunMode getRun() {
        return run;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public List<String> getNodeTags() {
        return nodeTags;
    }

    public void setNodeTags(List<String> nodeTags) {
        this.nodeTags = nodeTags;
    }

    /**
     * Why a node of {@code tags} does not run task {@code name}; {@code null} when it does.
     */
    @Nullable
    String notRunOn(String name, List<String> tags) {
        if (!enabled) {
            return "scan.tasks." + name + ".enabled is false on this node; the nodes where it is true run it";
        }
        List<String> missing = nodeTags.stream().filter(t -> !tags.contains(t)).toList();
        return missing.isEmpty()
                ? null
                : "scan.tasks." + name + ".node-tags requires " + nodeTags + " and this node's scan.node-tags are "
                        + tags + " (missing " + missing + "); the nodes that have them run it";
    }

    public void setRun(@Nullable RunMode run) {
        this.run = run;
    }

    public @Nullable String getEndpointColumn() {
        return endpointColumn;
    }

    public void setEndpointColumn(@Nullable String endpointColumn) {
        this.endpointColumn = endpointColumn;
    }

    public BlacklistLevel1Properties getLevel1() {
        return level1;
    }

    public BlacklistLevel2Properties getLevel2() {
        return level2;
    }

    public Duration getSlowCall() {
        return slowCall;
    }

    public void setSlowCall(Duration slowCall) {
        explicitlySet.add("slow-call");
        this.slowCall = slowCall;
    }

    public double getSlowShare() {
        return slowShare;
    }

    public void setSlowShare(double slowShare) {
        explicitlySet.add("slow-share");
        this.slowShare = slowShare;
    }

    // a column bound to no value (deleted_at: null in YAML binds an empty list) or to "null" matches NULL
    private List<Match> match(String name) {
        List<Match> result = new ArrayList<>();
        match.forEach((column, values) -> {
            boolean nulls = values.isEmpty()
                    || values.stream().anyMatch(v -> v.isEmpty() || v.strip().equalsIgnoreCase("null"));
            if (nulls && values.size() > 1) {
                throw new InvalidTaskException("scan.tasks." + name + ".match." + column + " lists null with values "
                        + values.stream().map(v -> v.isEmpty() ? "null" : v).toList()
                        + ": a column matches values or null, not both; split the rows between two tasks");
            }
            result.add(nulls ? Match.isNull(column) : new Match(column, values));
        });
        return result;
    }

    private List<Tier> tiers(String name) {
        List<Tier> result = new ArrayList<>();
        for (int i = 0; i < tiers.size(); i++) {
            String property = "scan.tasks." + name + ".tiers[" + i + "].";
            TierProperties tier = tiers.get(i);
            // both settings checked before either is reported: a tier whose retries do not parse and whose
            // interval is missing names its retries first, not only the interval
            List<String> problems = new ArrayList<>(2);
            @Nullable Tier retries = null;
            try {
                retries = Tier.of(tier.getRetries(), Duration.ZERO);
            } catch (IllegalArgumentException e) {
                problems.add(property + "retries is invalid: " + e.getMessage()
                        + "; write a count like 0 or a range like 1-5");
            }
            Duration interval = tier.getInterval();
            if (interval == null || interval.isNegative()) {
                problems.add(property + "interval must be set to a positive duration (was " + interval + "), e.g. 30s");
            }
            if (retries == null || !problems.isEmpty()) {
                throw new InvalidTaskException(String.join("; and ", problems));
            }
            result.add(new Tier(retries.minRetries(), retries.maxRetries(), interval));
        }
        return result;
    }

    /**
     * The tables of a sharded task with their data sources, checked: none when {@code tables} is not set.
     * A table of {@code data-sources} must be one of {@code tables}, and with {@code data-sources} every
     * table must be in one of its entries.
     */
    private @Nullable List<Tables.Table> tables(String name) {
        if (tables == null || tables.isBlank()) {
            if (!dataSources.isEmpty()) {
                throw new InvalidTaskException("scan.tasks." + name + ".data-sources is set, but tables is not: it"
                        + " says where the tables of a sharded task live; set scan.tasks." + name
                        + ".tables (e.g. tb_order_{0000..0015}) or remove data-sources");
            }
            return null;
        }
        if (table != null) {
            throw new InvalidTaskException("scan.tasks." + name + " sets both table and tables: a task scans one"
                    + " table (table) or several of the same columns (tables); remove one");
        }
        List<String> names = expand(name, "tables", tables);
        Map<String, String> sourceOf = new LinkedHashMap<>();
        dataSources.forEach((source, list) -> {
            for (String table : expand(name, "data-sources." + source, list)) {
                String earlier = sourceOf.put(table.toLowerCase(Locale.ROOT), source);
                if (earlier != null) {
                    throw new InvalidTaskException("scan.tasks." + name + ".data-sources names the table " + table
                            + " in both " + earlier + " and " + source + ": a table lives in one DataSource");
                }
                if (names.stream().noneMatch(table::equalsIgnoreCase)) {
                    throw new InvalidTaskException("scan.tasks." + name + ".data-sources." + source + " names the"
                            + " table " + table + ", which scan.tasks." + name + ".tables does not list: add it to"
                            + " tables or remove it from data-sources");
                }
            }
        });
        List<Tables.Table> result = new ArrayList<>();
        List<String> homeless = new ArrayList<>();
        for (String table : names) {
            String source = dataSources.isEmpty() ? Tables.Table.HOME : sourceOf.get(table.toLowerCase(Locale.ROOT));
            if (source == null) {
                homeless.add(table);
            } else {
                result.add(new Tables.Table(table, source));
            }
        }
        if (!homeless.isEmpty()) {
            throw new InvalidTaskException("scan.tasks." + name + ".data-sources does not say where the tables "
                    + (homeless.size() > 5
                            ? homeless.subList(0, 5) + " and " + (homeless.size() - 5) + " more"
                            : homeless)
                    + " live: name each table of tables under the DataSource bean that holds it");
        }
        return result;
    }

    private static List<String> expand(String name, String property, String names) {
        try {
            return Tables.expand(names);
        } catch (IllegalArgumentException e) {
            throw new InvalidTaskException("scan.tasks." + name + "." + property + ": " + e.getMessage());
        }
    }

    public @Nullable String getTables() {
        return tables;
    }

    public void setTables(@Nullable String tables) {
        this.tables = tables;
    }

    public Map<String, String> getDataSources() {
        return dataSources;
    }

    public void setDataSources(Map<String, String> dataSources) {
        this.dataSources = dataSources;
    }

    public @Nullable String getTable() {
        return table;
    }

    public void setTable(@Nullable String table) {
        this.table = table;
    }

    public @Nullable KeyType getShardKeyType() {
        return shardKeyType;
    }

    public void setShardKeyType(@Nullable KeyType shardKeyType) {
        this.shardKeyType = shardKeyType;
    }

    public @Nullable KeyType getIdType() {
        return idType;
    }

    public void setIdType(@Nullable KeyType idType) {
        this.idType = idType;
    }

    public String getIdColumn() {
        return idColumn;
    }

    public void setIdColumn(String idColumn) {
        this.idColumn = idColumn;
    }

    public @Nullable String getShardKeyColumn() {
        return shardKeyColumn;
    }

    public void setShardKeyColumn(@Nullable String shardKeyColumn) {
        this.shardKeyColumn = shardKeyColumn;
    }

    public String getStatusColumn() {
        return statusColumn;
    }

    public void setStatusColumn(String statusColumn) {
        this.statusColumn = statusColumn;
    }

    public String getRetryColumn() {
        return retryColumn;
    }

    public void setRetryColumn(String retryColumn) {
        this.retryColumn = retryColumn;
    }

    public String getUpdatedAtColumn() {
        return updatedAtColumn;
    }

    public void setUpdatedAtColumn(String updatedAtColumn) {
        this.updatedAtColumn = updatedAtColumn;
    }

    public String getLastErrorColumn() {
        return lastErrorColumn;
    }

    public void setLastErrorColumn(String lastErrorColumn) {
        this.lastErrorColumn = lastErrorColumn;
    }

    public String getShardColumn() {
        return shardColumn;
    }

    public void setShardColumn(String shardColumn) {
        this.shardColumn = shardColumn;
    }

    public int getPendingStatus() {
        return pendingStatus;
    }

    public void setPendingStatus(int pendingStatus) {
        this.pendingStatus = pendingStatus;
    }

    public int getDoneStatus() {
        return doneStatus;
    }

    public void setDoneStatus(int doneStatus) {
        this.doneStatus = doneStatus;
    }

    public int getDeadStatus() {
        return deadStatus;
    }

    public void setDeadStatus(int deadStatus) {
        this.deadStatus = deadStatus;
    }

    public int getShards() {
        return shards;
    }

    public void setShards(int shards) {
        this.shards = shards;
    }

    public int getPageSize() {
        return pageSize;
    }

    public void setPageSize(int pageSize) {
        this.pageSize = pageSize;
    }

    public int getWorkers() {
        return workers;
    }

    public void setWorkers(int workers) {
        this.workers = workers;
    }

    public List<TierProperties> getTiers() {
        return tiers;
    }

    public void setTiers(List<TierProperties> tiers) {
        this.tiers = tiers;
    }

    public OnExhausted getOnExhausted() {
        return onExhausted;
    }

    public void setOnExhausted(OnExhausted onExhausted) {
        explicitlySet.add("on-exhausted");
        this.onExhausted = onExhausted;
    }

    public Duration getHandlerTimeout() {
        return handlerTimeout;
    }

    public void setHandlerTimeout(Duration handlerTimeout) {
        explicitlySet.add("handler-timeout");
        this.handlerTimeout = handlerTimeout;
    }

    public Duration getCommitInterval() {
        return commitInterval;
    }

    public void setCommitInterval(Duration commitInterval) {
        this.commitInterval = commitInterval;
    }

    public @Nullable Ordering getOrdering() {
        return ordering;
    }

    public void setOrdering(@Nullable Ordering ordering) {
        this.ordering = ordering;
    }

    public Duration getRoundTimeout() {
        return roundTimeout;
    }

    public void setRoundTimeout(Duration roundTimeout) {
        this.roundTimeout = roundTimeout;
    }

    public Map<String, List<String>> getMatch() {
        return match;
    }

    public void setMatch(Map<String, List<String>> match) {
        this.match = match;
    }

    public MatchOverlap getMatchOverlap() {
        return matchOverlap;
    }

    public void setMatchOverlap(MatchOverlap matchOverlap) {
        this.matchOverlap = matchOverlap;
    }

    public ArchiveProperties getArchive() {
        return archive;
    }

    public ScheduleProperties getSchedule() {
        return schedule;
    }

    public IndexCheck getIndexCheck() {
        return indexCheck;
    }

    public void setIndexCheck(IndexCheck indexCheck) {
        this.indexCheck = indexCheck;
    }

    public @Nullable String getDueAtColumn() {
        return dueAtColumn;
    }

    public void setDueAtColumn(@Nullable String dueAtColumn) {
        this.dueAtColumn = dueAtColumn;
    }

    public Duration getDelay() {
        return delay;
    }

    public void setDelay(Duration delay) {
        this.delay = delay;
    }

    public boolean isWakeOnInsert() {
        return wakeOnInsert;
    }

    public void setWakeOnInsert(boolean wakeOnInsert) {
        this.wakeOnInsert = wakeOnInsert;
    }

    public int getPriority() {
        return priority;
    }

    public void setPriority(int priority) {
        this.priority = priority;
    }

    public @Nullable Duration getMaxWait() {
        return maxWait;
    }

    public void setMaxWait(@Nullable Duration maxWait) {
        this.maxWait = maxWait;
    }
}
