package io.shardscan.core.task;

import java.time.Duration;
import java.util.List;

/**
 * The one place that decides what a failure means for a task: which tier a retry count is in,
 * whether the last tier is open-ended, when a row has run out of tiers and is dead. Which rows a
 * tier fetches and when they are due, the engine decides from these ({@code TaskContext.fetch},
 * {@code DueTimes}). Immutable.
 */
public final class RetryRules {

    private final List<Tier> tiers;
    private final OnExhausted onExhausted;

    RetryRules(List<Tier> tiers, OnExhausted onExhausted) {
        this.tiers = List.copyOf(tiers);
        this.onExhausted = onExhausted;
    }

    /** The tier of a row that failed {@code retries} times: the last tier for a count past it. */
    public Tier tierOf(int retries) {
        for (Tier tier : tiers) {
            if (tier.covers(retries)) {
                return tier;
            }
        }
        return tiers.get(tiers.size() - 1);
    }

    /** The longest interval of any tier: how long a failed row may rest before it is fetched again. */
    public Duration longestInterval() {
        return tiers.stream().map(Tier::interval).max(Duration::compareTo).orElseThrow();
    }

    /** Whether the task fetches failed rows at all: some tier covers a retry count above 0. */
    public boolean retries() {
        return tiers.stream().anyMatch(tier -> tier.maxRetries() > 0);
    }

    /** Whether {@code tier} has no upper bound: the last tier of a task that keeps retrying. */
    public boolean openEnded(Tier tier) {
        return onExhausted == OnExhausted.KEEP_RETRYING && tier.equals(tiers.get(tiers.size() - 1));
    }

    /**
     * How many times a range task tries a failing row again at once before it records it as failed:
     * the last tier's highest retry count. A range must move on, so a task that keeps retrying stops
     * there too, and the tiers' intervals are not waited (its position would stall meanwhile).
     */
    public int inPlaceRetries() {
        return tiers.get(tiers.size() - 1).maxRetries();
    }

    /** Whether a row that has now failed {@code retries} times has run out of tiers and is dead. */
    public boolean exhausted(int retries) {
        return onExhausted == OnExhausted.DEAD
                && retries > tiers.get(tiers.size() - 1).maxRetries();
    }

    /** What the write-back records for {@code outcome} of a row that had failed {@code retries} times. */
    public Outcome.Kind recorded(int retries, Outcome outcome) {
        return outcome.kind() == Outcome.Kind.RETRY && exhausted(retries + 1) ? Outcome.Kind.DEAD : outcome.kind();
    }
}
