package io.shardscan.autoconfigure;

import io.shardscan.core.IndexCheck;
import io.shardscan.core.InvalidTaskException;
import io.shardscan.core.OnExhausted;
import io.shardscan.core.TaskDefinition;
import io.shardscan.core.Tier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Configuration of one task, under {@code scan.tasks.<name>.*}. */
public class TaskProperties {

    /** The table to scan, optionally schema-qualified. */
    private @Nullable String table;

    /** The numeric primary-key column the scan pages by. */
    private String idColumn = "id";

    /** The numeric column whose rows stay on one shard and in order; defaults to the id column. */
    private @Nullable String shardKeyColumn;

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

    /** How long a round waits for its handlers before it is reported as timed out. */
    private Duration roundTimeout = Duration.ofMinutes(5);

    /** What startup does when the table lacks the index the fetch needs: fail, warn or off. */
    private IndexCheck indexCheck = IndexCheck.WARN;

    /**
     * The validated task definition of these settings.
     *
     * @param name the task name, the key under {@code scan.tasks}
     * @throws InvalidTaskException naming the property and the fix when a setting cannot work
     */
    public TaskDefinition toDefinition(String name) {
        return TaskDefinition.builder(name)
                .table(table)
                .idColumn(idColumn)
                .shardKeyColumn(shardKeyColumn)
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
                .onExhausted(onExhausted)
                .roundTimeout(roundTimeout)
                .indexCheck(indexCheck)
                .build();
    }

    private List<Tier> tiers(String name) {
        List<Tier> result = new ArrayList<>();
        for (int i = 0; i < tiers.size(); i++) {
            String property = "scan.tasks." + name + ".tiers[" + i + "].";
            TierProperties tier = tiers.get(i);
            Duration interval = tier.getInterval();
            if (interval == null || interval.isNegative()) {
                throw new InvalidTaskException(
                        property + "interval must be set to a positive duration (was " + interval + "), e.g. 30s");
            }
            try {
                result.add(Tier.of(tier.getRetries(), interval));
            } catch (IllegalArgumentException e) {
                throw new InvalidTaskException(property + "retries is invalid: " + e.getMessage()
                        + "; write a count like 0 or a range like 1-5");
            }
        }
        return result;
    }

    public @Nullable String getTable() {
        return table;
    }

    public void setTable(@Nullable String table) {
        this.table = table;
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
        this.onExhausted = onExhausted;
    }

    public Duration getRoundTimeout() {
        return roundTimeout;
    }

    public void setRoundTimeout(Duration roundTimeout) {
        this.roundTimeout = roundTimeout;
    }

    public IndexCheck getIndexCheck() {
        return indexCheck;
    }

    public void setIndexCheck(IndexCheck indexCheck) {
        this.indexCheck = indexCheck;
    }
}
