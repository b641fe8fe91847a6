package io.shardscan.core.task;

/** Whether a task may take pending rows that another task on its table matches too. */
public enum MatchOverlap {
    /** Startup fails when another task on the table can match the same pending rows. */
    REFUSED,
    /** Both tasks may fetch such rows; each row runs in whichever task's handler reaches it, possibly both. */
    ALLOWED
}
