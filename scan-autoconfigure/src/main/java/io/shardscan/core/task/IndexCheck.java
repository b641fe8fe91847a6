package io.shardscan.core.task;

/** What startup does when a scanned table lacks the index that keeps the fetch a range scan. */
public enum IndexCheck {
    /** Startup fails with the statement to run. */
    FAIL,
    /** Startup logs the statement to run and goes on with a slower fetch. */
    WARN,
    /** No check. */
    OFF
}
