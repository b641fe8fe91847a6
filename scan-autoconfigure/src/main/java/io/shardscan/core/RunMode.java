package io.shardscan.core;

/** How long a range task runs: once over the ids it found at start, or on, following new ids. */
public enum RunMode {

    /** Covers the id space as it was when the run started (its highest id then), then ends DONE. */
    ONCE,

    /** Covers the existing ids, then keeps claiming ranges as new ids arrive; never ends by itself. */
    FOLLOW
}
