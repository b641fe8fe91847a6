package io.shardscan.core.task;

/**
 * How long a task's run lasts ({@code scan.tasks.<name>.run}). A status-column task runs
 * {@link #FOREVER} or {@link #UNTIL_EMPTY}; {@link #ONCE} and {@link #FOLLOW} belong to range mode.
 */
public enum RunMode {

    /** Polls forever: the run never ends (the default of a status-column task). */
    FOREVER,

    /**
     * Ends the run once no row is left that the run must finish (see {@code TaskControl.anyLeft}), then
     * starts no round until the run is started again.
     */
    UNTIL_EMPTY,

    /** Range mode only: covers the id space as it was at the start, then ends. */
    ONCE,

    /** Range mode only: covers the existing ids, then keeps following new ones. */
    FOLLOW;

    /** Whether a run of this mode can end by itself. */
    public boolean ends() {
        return this == UNTIL_EMPTY || this == ONCE;
    }

    /** The value as written in {@code scan.tasks.<name>.run}, e.g. {@code until-empty}. */
    public String property() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
