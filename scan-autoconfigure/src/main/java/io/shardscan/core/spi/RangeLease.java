package io.shardscan.core.spi;

/**
 * A range this node owns under {@code epoch}: the ids {@code start}–{@code end}, of which those up to
 * {@code position} are committed. Immutable.
 *
 * @param start the range's first id
 * @param end the range's last id
 * @param position the last id whose row is committed; {@code start - 1} when none
 * @param epoch issued by the store when the range was opened or taken over; greater than any earlier owner's
 */
public record RangeLease(long start, long end, long position, long epoch) {}
