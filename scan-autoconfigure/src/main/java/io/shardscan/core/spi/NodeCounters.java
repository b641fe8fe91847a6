package io.shardscan.core.spi;

import org.jspecify.annotations.Nullable;

/**
 * The running totals of one task on one node, published with every heartbeat so that any node (and
 * its dashboard) can show every node of the cluster without asking the others. Counted since the
 * node started. Immutable.
 *
 * @param processed rows the node marked done
 * @param failed failures the node wrote back that left the row pending
 * @param dead rows the node marked dead
 * @param inFlight rows whose handler runs on the node right now
 * @param shards the task's shard count on the node ({@code scan.tasks.X.shards}), which every node
 *     compares with its own (see {@link ShardCountConflict}); {@link #UNKNOWN_SHARDS} when the node published
 *     none (a node of a version before it did)
 * @param weight the node's weight in the assignment ({@code scan.node-weight}): a node of weight 2
 *     takes twice the shards of a node of weight 1; 1 for a node that published none
 * @param holdingBack whether the node holds back after rejoining ({@code scan.rejoin-hold}): it takes
 *     no shard another member that does not hold back holds, which every node's assignment leaves
 *     with that member ({@link ShardAssignment}); false for a node that published none
 */
public record NodeCounters(
        long processed, long failed, long dead, long inFlight, int shards, int weight, boolean holdingBack) {

    /** The {@link #shards()} of a node that published no shard count. */
    public static final int UNKNOWN_SHARDS = 0;

    /** The highest {@link #weight()}. */
    public static final int MAX_WEIGHT = 100;

    /**
     * The longest text {@link #encode()} returns: four longs, a positive int, a weight of at most three
     * digits, the hold flag and six commas (the JDBC column holds 100).
     */
    public static final int MAX_ENCODED_LENGTH = 4 * 20 + 10 + 3 + 1 + 6;

    public NodeCounters {
        if (weight < 1 || weight > MAX_WEIGHT) {
            throw new IllegalArgumentException("weight " + weight + " is not between 1 and " + MAX_WEIGHT);
        }
    }

    /** Totals of a node that does not hold back. */
    public NodeCounters(long processed, long failed, long dead, long inFlight, int shards, int weight) {
        this(processed, failed, dead, inFlight, shards, weight, false);
    }

    /** These totals with {@link #holdingBack()} set to {@code holding}. */
    public NodeCounters holdingBack(boolean holding) {
        return new NodeCounters(processed, failed, dead, inFlight, shards, weight, holding);
    }

    /** Totals of a node of weight 1. */
    public NodeCounters(long processed, long failed, long dead, long inFlight, int shards) {
        this(processed, failed, dead, inFlight, shards, 1);
    }

    /** Totals without a shard count, as a node that published none. */
    public NodeCounters(long processed, long failed, long dead, long inFlight) {
        this(processed, failed, dead, inFlight, UNKNOWN_SHARDS);
    }

    /** Whether the node published its shard count. */
    public boolean knowsShards() {
        return shards > 0;
    }

    /**
     * The compact text a coordinator stores: {@code processed,failed,dead,inFlight,shards,weight}, and
     * {@code ,1} after it while the node holds back. The shard count, the weight and the hold ride with
     * the counters so that neither coordinator needs a column or key of its own for them; the hold is
     * written only while it lasts, so a node of a version before it misreads a member's counters only
     * then (as none: weight 1).
     */
    public String encode() {
        return processed + "," + failed + "," + dead + "," + inFlight + "," + shards + "," + weight
                + (holdingBack ? ",1" : "");
    }

    /**
     * Reads what {@link #encode()} wrote.
     * Four fields (a node of a version before the shard count) read with {@link #UNKNOWN_SHARDS}, five
     * (before the weight) with weight 1, six as not holding back.
     *
     * @return {@code null} for {@code null} or a text it cannot read (a node that published none)
     */
    public static @Nullable NodeCounters decode(@Nullable String text) {
        if (text == null) {
            return null;
        }
        String[] parts = text.split(",", -1);
        if (parts.length < 4 || parts.length > 7) {
            return null;
        }
        try {
            return new NodeCounters(
                    Long.parseLong(parts[0]),
                    Long.parseLong(parts[1]),
                    Long.parseLong(parts[2]),
                    Long.parseLong(parts[3]),
                    parts.length >= 5 ? Math.max(UNKNOWN_SHARDS, Integer.parseInt(parts[4])) : UNKNOWN_SHARDS,
                    parts.length >= 6 ? Integer.parseInt(parts[5]) : 1,
                    parts.length == 7 && parts[6].equals("1"));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
