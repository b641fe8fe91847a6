package io.shardscan.testsupport;

import io.shardscan.core.ScanListener;
import io.shardscan.core.task.Tier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the rounds an engine ended, so that a test waits for "the next N rounds ended" (the engine
 * looked N more times) instead of for a stretch of wall time that a loaded machine may not fill.
 */
public final class RoundEvents implements ScanListener {

    private final AtomicLong ended = new AtomicLong();

    @Override
    public Timing roundStarted(String task, int shard, Tier tier) {
        return outcome -> ended.incrementAndGet();
    }

    /** How many rounds ended so far, of any shard, tier and outcome. */
    public long ended() {
        return ended.get();
    }

    /** Whether at least {@code rounds} rounds ended since {@code mark}, an earlier {@link #ended()}. */
    public boolean endedSince(long mark, long rounds) {
        return ended.get() - mark >= rounds;
    }
}
