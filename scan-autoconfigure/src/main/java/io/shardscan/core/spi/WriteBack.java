package io.shardscan.core.spi;

import io.shardscan.core.task.Row;
import java.time.Instant;
import java.util.List;

/**
 * A round's outcomes for one shard, as the engine decided them. Immutable.
 *
 * @param shard the shard the rows belong to
 * @param epoch the lease epoch the round ran under; the write only happens while the fence holds it
 * @param at this node's time of the write-back, for its own figures; the store stamps the rows' last
 *     update with its own clock, never this one, so that nodes whose clocks differ agree on a row's rest
 * @param done ids to mark done, each as {@link Row#idValue()} gives it: a {@code Long}, or the text of a
 *     text or UUID id
 * @param failed rows to keep pending with a new retry count and error
 * @param dead rows to mark dead with their error
 * @param run the run whose counts the batch adds to (see {@link TaskRuns#counted}); 0: none, for a
 *     task that runs forever
 */
public record WriteBack(
        int shard, long epoch, Instant at, List<?> done, List<Failure> failed, List<Failure> dead, long run) {

    public WriteBack {
        done = List.copyOf(done);
        failed = List.copyOf(failed);
        dead = List.copyOf(dead);
    }

    /** A batch that counts for no run. */
    public WriteBack(int shard, long epoch, Instant at, List<?> done, List<Failure> failed, List<Failure> dead) {
        this(shard, epoch, at, done, failed, dead, 0);
    }

    /** What the batch counts for its run. */
    public RunCounts counts() {
        return new RunCounts(done.size(), failed.size(), dead.size());
    }

    /**
     * Whether the batch only marks rows done and counts for no run: a store may write it with one
     * fenced statement. Decided here, next to the lists, so that an outcome list added to the batch
     * is added to this rule too, rather than dropped by a store's fast path.
     */
    public boolean doneOnly() {
        return run == 0 && failed.isEmpty() && dead.isEmpty();
    }

    /** Whether there is nothing to write. */
    public boolean isEmpty() {
        return done.isEmpty() && failed.isEmpty() && dead.isEmpty();
    }

    /** Rows written, of every kind. */
    public int size() {
        return done.size() + failed.size() + dead.size();
    }

    /**
     * A failed row.
     *
     * @param id the row id, as {@link Row#idValue()} gives it
     * @param retries the row's retry count after this failure
     * @param error the error text, in full; the store cuts it to what its column holds
     */
    public record Failure(Object id, int retries, String error) {}
}
