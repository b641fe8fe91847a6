package io.shardscan.core;

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
 */
public record NodeCounters(long processed, long failed, long dead, long inFlight) {

    /** The longest text {@link #encode()} returns: four longs and three commas (the JDBC column holds 100). */
    public static final int MAX_ENCODED_LENGTH = 4 * 20 + 3;

    /** The totals of {@code stats}. */
    public static NodeCounters of(TaskStats stats) {
        return new NodeCounters(stats.processed(), stats.failed(), stats.dead(), stats.inFlight());
    }

    /** The compact text a coordinator stores: {@code processed,failed,dead,inFlight}. */
    public String encode() {
        return processed + "," + failed + "," + dead + "," + inFlight;
    }

    /**
     * Reads what {@link #encode()} wrote.
     *
     * @return {@code null} for {@code null} or a text it cannot read (a node that published none)
     */
    public static @Nullable NodeCounters decode(@Nullable String text) {
        if (text == null) {
            return null;
        }
        String[] parts = text.split(",", -1);
        if (parts.length != 4) {
            return null;
        }
        try {
            return new NodeCounters(
                    Long.parseLong(parts[0]),
                    Long.parseLong(parts[1]),
                    Long.parseLong(parts[2]),
                    Long.parseLong(parts[3]));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
