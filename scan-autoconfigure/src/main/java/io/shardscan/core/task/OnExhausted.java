package io.shardscan.core.task;

/** What happens to a row that fails past the last tier. */
public enum OnExhausted {
    /** The row is marked dead with its last error ("transfer": give up after N tries). */
    DEAD,
    /** The row stays in the last tier and is retried forever ("sync": it must arrive). */
    KEEP_RETRYING
}
