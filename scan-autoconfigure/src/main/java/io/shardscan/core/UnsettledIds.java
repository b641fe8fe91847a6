package io.shardscan.core;

import java.util.Map;
import java.util.TreeMap;

/**
 * What one scan has read of its range but not yet settled: from the settled position up to the scan
 * position, the ids that were missing when read (holes), which a transaction that took its id before a
 * higher one and committed after it may still fill. A hole is read again once its ids are settled
 * ({@link IdHorizon}); a page with no hole is never read twice, so a table without late commits costs
 * nothing more. Memory: one entry per hole, at most one per row read within the follow grace. Not
 * thread-safe: one scan's.
 */
final class UnsettledIds {

    /** First id of each hole to its last. */
    private final TreeMap<Long, Long> holes = new TreeMap<>();

    private long settled;

    /** Nothing read yet; every id up to {@code settled} (the committed position) is settled. */
    UnsettledIds(long settled) {
        this.settled = settled;
    }

    /** Every id up to this one ran or is past running: the range is done once it reaches the range's end. */
    long settled() {
        return settled;
    }

    /**
     * Where the next page starts: before the first hole that {@code bound} settles, to read it once more,
     * else at the scan position. Settles, without a read, what has no hole up to the bound.
     *
     * @param bound the settled bound now ({@link IdHorizon#settled}), read before the page
     */
    long from(long position, long bound) {
        long limit = Math.min(position, bound);
        Map.Entry<Long, Long> first = holes.firstEntry();
        if (first == null || first.getKey() > limit) {
            settled = Math.max(settled, limit);
            return position;
        }
        settled = Math.max(settled, first.getKey() - 1);
        return settled;
    }

    /**
     * Whether a row of a page is to run: past the scan position, or filling a hole (then it no longer is
     * one). A row at or below the position outside every hole already ran.
     */
    boolean runs(long id, long position) {
        if (id > position) {
            return true;
        }
        Map.Entry<Long, Long> hole = holes.floorEntry(id);
        if (hole == null || hole.getValue() < id) {
            return false;
        }
        holes.remove(hole.getKey());
        if (hole.getKey() < id) {
            holes.put(hole.getKey(), id - 1);
        }
        if (id < hole.getValue()) {
            holes.put(id + 1, hole.getValue());
        }
        return true;
    }

    /** The scan ran row {@code id} past its position: the ids in between were missing. */
    void passed(long position, long id) {
        long first = Math.max(position, settled) + 1;
        if (id > first) {
            holes.put(first, id - 1);
        }
    }

    /**
     * A page read from {@code from} found every id there was up to {@code covered} (the range's end for a
     * short page): when it read on from the settled position, settles up to {@code bound}.
     *
     * @param bound the settled bound when the page was read
     */
    void read(long from, long covered, long bound) {
        if (from > settled) {
            return;
        }
        settled = Math.max(settled, Math.min(covered, bound));
        Map.Entry<Long, Long> across = holes.floorEntry(settled);
        holes.headMap(settled, true).clear();
        if (across != null && across.getValue() > settled) {
            holes.put(settled + 1, across.getValue());
        }
    }
}
