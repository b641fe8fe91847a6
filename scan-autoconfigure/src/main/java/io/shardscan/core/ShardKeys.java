package io.shardscan.core;

import io.shardscan.core.spi.Requeue;
import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TextKeys;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/** Which shards a wake-up names: the shard of each shard key, as the fetch computes it. */
final class ShardKeys {

    private ShardKeys() {}

    /** The shards of {@code keys}, each the shard of its key ({@link TaskDefinition#shardOf}). */
    static Collection<Integer> shards(TaskDefinition task, Collection<?> keys) {
        TreeSet<Integer> shards = new TreeSet<>();
        keys.forEach(key -> shards.addAll(everyTable(
                task,
                task.columns().shardKeyType() == KeyType.TEXT
                        ? TextKeys.shardOf(text(task, key), task.shardsPerTable())
                        : task.shardOf(value(task, key)))));
        return shards;
    }

    /**
     * The logical shards of a key whose shard within its table is {@code local}: that shard, or for a
     * sharded task that shard of every table, as the key does not say its table.
     */
    private static List<Integer> everyTable(TaskDefinition task, int local) {
        if (task.tables() == null) {
            return List.of(local);
        }
        List<Integer> shards = new java.util.ArrayList<>();
        for (int table = 0; table < task.tables().tables().size(); table++) {
            shards.add(task.tables().logicalShard(table, local));
        }
        return shards;
    }

    /**
     * The shards of the row with id {@code id} (one, but a sharded task's id does not say its table): known
     * from the id alone only when the id is the shard key.
     *
     * @throws IllegalArgumentException when the shard key is another column
     */
    static List<Integer> shardsOfId(TaskDefinition task, long id) {
        if (!task.columns().shardKey().equalsIgnoreCase(task.columns().id())) {
            throw new IllegalArgumentException("task " + task.name() + " shards its rows by "
                    + task.columns().shardKey()
                    + ", not by the id column " + task.columns().id() + ", so a row's id does not say its shard: call"
                    + " wake(\"" + task.name() + "\", " + task.columns().shardKey() + ") with the row's "
                    + task.columns().shardKey());
        }
        if (task.columns().idType() == KeyType.TEXT) {
            throw new IllegalArgumentException("task " + task.name() + " has text ids (id-type: text): call wake(\""
                    + task.name() + "\", id) with the row's " + task.columns().id() + " as a String or UUID");
        }
        return everyTable(task, task.shardOf(id));
    }

    /**
     * The shards a requeue may have put rows back in: those of its ids when the id column is the shard
     * key, else every shard of the task (the rows' shards are not known without reading them). Its ids
     * are {@code Long}s ({@link TaskView#requeue} parsed them).
     */
    static Collection<Integer> ofRequeue(TaskDefinition task, Requeue which) {
        if (!which.ids().isEmpty()
                && task.columns().shardKey().equalsIgnoreCase(task.columns().id())) {
            return shards(task, which.ids());
        }
        TreeSet<Integer> all = new TreeSet<>();
        for (int shard = 0; shard < task.shards(); shard++) {
            all.add(shard);
        }
        return all;
    }

    private static Object text(TaskDefinition task, Object key) {
        requireKey(task, key);
        if (!TextKeys.isText(key)) {
            throw new IllegalArgumentException(
                    "task " + task.name() + ": its shard key " + task.columns().shardKey()
                            + " is text (shard-key-type: text), but the wake-up named "
                            + key.getClass().getSimpleName()
                            + " '" + key + "': pass the row's " + task.columns().shardKey() + " as a String or UUID");
        }
        return key;
    }

    private static void requireKey(TaskDefinition task, Object key) {
        Objects.requireNonNull(
                key,
                () -> "task " + task.name() + ": a NULL " + task.columns().shardKey()
                        + " has no shard, so no node ever fetches such a row; give the row a key");
    }

    private static long value(TaskDefinition task, Object key) {
        requireKey(task, key);
        try {
            if (key instanceof BigDecimal decimal) {
                return decimal.longValueExact();
            }
            if (key instanceof BigInteger integer) {
                return integer.longValueExact();
            }
        } catch (ArithmeticException e) {
            throw notAKey(task, key);
        }
        if (key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte) {
            return ((Number) key).longValue();
        }
        throw notAKey(task, key);
    }

    private static IllegalArgumentException notAKey(TaskDefinition task, Object key) {
        return new IllegalArgumentException("task " + task.name() + ": a shard key is the integer value of "
                + task.columns().shardKey() + ", but the wake-up named "
                + key.getClass().getSimpleName() + " '" + key
                + "': pass the row's " + task.columns().shardKey() + " as a Long or Integer (a text or UUID column"
                + " takes shard-key-type: text)");
    }
}
