package io.shardscan.core.task;

/**
 * What a task's id column or shard-key column holds, which decides how the engine reads, orders and
 * shards its values.
 */
public enum KeyType {

    /**
     * A whole number (BIGINT, INTEGER, ...): a shard key's shard is the key modulo the shard count, never
     * negative; ids order as numbers.
     */
    WHOLE,

    /**
     * Text or a UUID (VARCHAR, TEXT, UUID, ...): a shard key's shard is a hash of its text modulo the
     * shard count, computed the same in SQL and in Java ({@link TextKeys}); ids order as their text
     * does in binary (code unit by code unit, as {@link String#compareTo}), which the database is made
     * to follow: a UUID's canonical lower-case text orders as its bytes do.
     */
    TEXT
}
