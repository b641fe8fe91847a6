package io.shardscan.core.task;

/** Whether a task keeps the rows of one shard key in id order, also across failures. */
public enum Ordering {
    /**
     * Within a shard, a key's rows run in id order; once one fails (or is skipped, or times out),
     * the key's later rows wait, pending and untouched, until it is done or dead.
     */
    PER_KEY,
    /** Rows run in id order within a lane, but a failed row does not hold back its key's later rows. */
    NONE
}
