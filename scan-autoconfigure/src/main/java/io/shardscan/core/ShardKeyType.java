package io.shardscan.core;

/**
 * What a task's {@code shard-key-column} holds, which decides how a row's shard is computed.
 */
public enum ShardKeyType {

    /** A whole number (BIGINT, INTEGER, ...): the shard is the key modulo the shard count, never negative. */
    WHOLE,

    /**
     * Text or a UUID (VARCHAR, TEXT, UUID, ...): the shard is a hash of the key's text modulo the
     * shard count, computed the same in SQL and in Java ({@link TextKeys}).
     */
    TEXT
}
