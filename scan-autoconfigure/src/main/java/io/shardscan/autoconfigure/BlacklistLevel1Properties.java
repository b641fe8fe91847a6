package io.shardscan.autoconfigure;

/** Level 1 of a task's endpoint blacklist, under {@code scan.tasks.<name>.level1.*}: this node, this pass. */
public class BlacklistLevel1Properties {

    /** Endpoint-down failures in a row (and tries of one row in a pass) after which an endpoint is skipped on this node for the pass. */
    private int after = 2;

    // whether after was set, which a mode's preset leaves alone
    private boolean afterSet;

    public int getAfter() {
        return after;
    }

    public void setAfter(int after) {
        this.afterSet = true;
        this.after = after;
    }

    boolean afterSet() {
        return afterSet;
    }
}
