package io.shardscan.core.task;

import org.jspecify.annotations.Nullable;

/**
 * The columns of a task's table that the engine reads and writes, and what its id and shard key
 * hold. Checked by {@link TaskDefinition}, which names the property of a bad one.
 *
 * @param id the row's id, unique in the table
 * @param shardKey the column whose value picks the row's shard; the id when not set
 * @param status the column of the pending, done and dead values ({@link Statuses})
 * @param retry how often the row failed
 * @param updatedAt when the engine last wrote the row
 * @param lastError the last failure's message
 * @param shard the generated column {@code shardKey mod shards} the fetch's index leads with
 * @param dueAt when the row becomes due; {@code null} for a task whose rows are due at once
 * @param idType what the id column holds
 * @param shardKeyType what the shard key column holds
 */
public record Columns(
        String id,
        String shardKey,
        String status,
        String retry,
        String updatedAt,
        String lastError,
        String shard,
        @Nullable String dueAt,
        KeyType idType,
        KeyType shardKeyType) {}
