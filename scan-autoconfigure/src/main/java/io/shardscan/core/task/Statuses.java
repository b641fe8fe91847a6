package io.shardscan.core.task;

/**
 * The status column's values, which differ (checked by {@link TaskDefinition}).
 *
 * @param pending a row still to process (or to retry)
 * @param done a row processed
 * @param dead a row that ran out of tiers
 */
public record Statuses(int pending, int done, int dead) {}
