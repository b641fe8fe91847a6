package io.shardscan.core;

import io.shardscan.core.spi.TaskRun;
import io.shardscan.core.task.TaskDefinition;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * What an application does with its tasks from its own code, one bean of it per engine: start a new
 * run of a task that ends (such as {@code run: until-empty}), wake the owner of a row it just
 * inserted, and run tasks to quiet in a test, as db-scheduler's {@code ManualScheduler} does, without
 * waiting for tier intervals. Thread-safe.
 */
public final class ScanTasks {

    private final ScanEngine engine;

    public ScanTasks(ScanEngine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /**
     * Starts a new run of {@code task} on every node, with the next run id: its rows are processed
     * again until it ends. A run that is still running is replaced by the new one (its counts stay
     * with it).
     *
     * @return the run started
     * @throws IllegalArgumentException for an unknown task
     *     For a range task ({@code mode: range}), a new run starts only when the current one is DONE.
     * @throws IllegalStateException for a task that runs forever ({@code run: forever}), which has no runs
     */
    public TaskRun start(String task) {
        if (engine.rangeTaskNames().contains(task)) {
            // a range task's run covers the ids as they are when it starts; a running one is left alone
            RangeView range = engine.rangeTask(task);
            return range.start();
        }
        return engine.task(task).start();
    }

    /**
     * Wakes the owner of the shard of {@code shardKey} (the value of the task's {@code
     * shard-key-column} of a row just committed): its fresh rows are fetched now instead of at the
     * next tier-0 poll. Here when this node holds the shard, else on its owner through the wake
     * channel (Redis pub/sub, PostgreSQL NOTIFY, or none: then the row waits for its poll). Call it
     * after the insert commits, or the owner may look before the row is there. Wake-ups coalesce: a
     * burst for one shard makes a round or two, not one each. Returns without waiting for the round.
     *
     * <p>The engine starts with the application context's lifecycle (after every bean's
     * {@code @PostConstruct}) and stops with it: a wake-up while it is not running (in a
     * {@code @PostConstruct}, or during shutdown) is dropped, logged once at INFO, and the row is
     * picked up by the tier-0 poll as if nobody woke it.
     *
     * @param shardKey a {@code Long}, {@code Integer}, {@code Short}, {@code Byte}, or an integral
     *     {@code BigInteger} or {@code BigDecimal}
     * @throws IllegalArgumentException for an unknown task, a range task, or a key that is not an integer
     * @throws NullPointerException for a {@code null} key, which has no shard; the message names the
     *     column to pass
     */
    public void wake(String task, Object shardKey) {
        if (shardKey == null) {
            TaskDefinition definition = engine.task(task).definition();
            throw new NullPointerException("wake(\"" + task + "\", shardKey) got a null shardKey: pass the row's "
                    + definition.columns().shardKey() + " (the task's shard-key-column) as a Long or Integer, or call"
                    + " wakeRow(\"" + task + "\", id) when it is the id column; a row whose "
                    + definition.columns().shardKey() + " is NULL has no shard and is never fetched");
        }
        wake(task, List.of(shardKey));
    }

    /**
     * {@link #wake(String, Object) Wakes} the owners of the shards of {@code shardKeys}, each shard
     * once, e.g. after a batch insert.
     */
    public void wake(String task, Collection<?> shardKeys) {
        engine.wake(task, ShardKeys.shards(engine.task(task).definition(), shardKeys));
    }

    /**
     * {@link #wake(String, Object) Wakes} the owner of the row with id {@code id}, for a task whose
     * {@code shard-key-column} is its {@code id-column}: only then does the id say the shard, without
     * reading the row.
     *
     * @throws IllegalArgumentException when the task's shard key is another column (call
     *     {@link #wake(String, Object)} with the row's shard key), when its ids are text (call
     *     {@link #wake(String, Object)} with the id's text), for an unknown or a range task
     */
    public void wakeRow(String task, long id) {
        engine.wake(task, ShardKeys.shardsOfId(engine.task(task).definition(), id));
    }

    /**
     * {@link #wakeRow(String, long) Wakes} the owners of the rows with ids {@code ids}, each shard
     * once, for a task whose {@code shard-key-column} is its {@code id-column}.
     *
     * @throws IllegalArgumentException as {@link #wakeRow(String, long)}
     */
    public void wakeRows(String task, Collection<Long> ids) {
        TaskDefinition definition = engine.task(task).definition();
        TreeSet<Integer> shards = new TreeSet<>();
        ids.forEach(id -> shards.addAll(ShardKeys.shardsOfId(definition, id)));
        engine.wake(task, shards);
    }

    /**
     * Scans every shard this node holds of {@code task} now and returns once it is quiet: every tier
     * ran a pass to its end and the last round of passes handled no row. Rows that fail meanwhile
     * wait for their tier's interval as always.
     *
     * @return the rows handled meanwhile (done, failed or dead)
     * @throws IllegalArgumentException for an unknown task
     * @throws IllegalStateException when the task holds no shard, or is still busy, after {@code timeout}
     */
    public long drain(String task, Duration timeout) {
        return engine.task(task).drain(timeout);
    }

    /**
     * {@link #drain(String, Duration) Drains} every task in turn, each within {@code timeout}.
     *
     * @return the rows each task handled, by task name in configuration order
     */
    public Map<String, Long> drainAll(Duration timeout) {
        Map<String, Long> handled = new LinkedHashMap<>();
        engine.taskNames().forEach(name -> handled.put(name, drain(name, timeout)));
        return handled;
    }
}
