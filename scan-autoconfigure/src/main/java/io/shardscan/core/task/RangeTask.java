package io.shardscan.core.task;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A task in range mode (seed 002): its table is read by id ranges claimed from a shared cursor and
 * is never written; only a numeric id column is needed. The {@link TaskDefinition} gives the name,
 * table, id column, page size, workers, commit interval and the tiers whose retry counts bound the
 * in-place retries of a failing row. Immutable.
 *
 * @param definition the task's table, paging, workers and tiers
 * @param rangeSize how many ids one claim of the cursor covers
 * @param stallTimeout how long a range's position may stand still before another node takes it over
 * @param run whether the task ends once it covered the ids found at start, or follows new ids
 * @param followGrace with {@link RunMode#FOLLOW}: how long after the table showed a higher id a lower
 *     one may still commit and be run (a transaction that took its id early and committed late); a
 *     range counts as done only once the table's ids passed its end at least this long ago
 * @param schedule with {@link RunMode#ONCE}: when runs start by themselves, each firing starting one over
 *     the ids there are then, unless the current run still runs; {@code null}: only the first run and
 *     {@code ScanTasks.start} start one
 */
public record RangeTask(
        TaskDefinition definition,
        long rangeSize,
        Duration stallTimeout,
        RunMode run,
        Duration followGrace,
        @Nullable Schedule schedule) {

    /** The default number of ids per range. */
    public static final long DEFAULT_RANGE_SIZE = 10_000;

    /** The default stall timeout, seed 002's five minutes. */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofMinutes(5);

    /**
     * The default follow grace: far longer than the commit of an ordinary transaction, short enough
     * that a range whose ids were passed holds its worker only that long.
     */
    public static final Duration DEFAULT_FOLLOW_GRACE = Duration.ofSeconds(5);

    public RangeTask {
        Objects.requireNonNull(definition, "definition");
        Objects.requireNonNull(stallTimeout, "stallTimeout");
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(followGrace, "followGrace");
        if (run != RunMode.ONCE && run != RunMode.FOLLOW) {
            throw new InvalidTaskException("scan.tasks." + definition.name() + ".run is " + run.property()
                    + ", which a range task does not have: once (cover the ids found at start, then end) or follow"
                    + " (then keep running new ids)");
        }
        if (rangeSize < 1) {
            throw new InvalidTaskException("scan.tasks." + definition.name() + ".range-size must be at least 1 (was "
                    + rangeSize + "): the ids one claim covers, e.g. 10000");
        }
        if (stallTimeout.isNegative() || stallTimeout.isZero()) {
            throw new InvalidTaskException("scan.tasks." + definition.name() + ".stall-timeout must be a positive"
                    + " duration (was " + stallTimeout + "), e.g. 5m");
        }
        if (definition.rounds().commitInterval().compareTo(stallTimeout) >= 0) {
            throw new InvalidTaskException("scan.tasks." + definition.name() + ".commit-interval ("
                    + definition.rounds().commitInterval() + ") must be shorter than its stall-timeout ("
                    + stallTimeout + "): a range's position moves only when it commits, so a range that commits"
                    + " less often than that looks stalled and is taken over while it runs; e.g. commit-interval:"
                    + " 250ms");
        }
        if (followGrace.isNegative()) {
            throw new InvalidTaskException("scan.tasks." + definition.name() + ".follow-grace must not be negative"
                    + " (was " + followGrace + "), e.g. 5s; 0s runs no id that commits after a higher one was read");
        }
        if (schedule != null && run != RunMode.ONCE) {
            throw new InvalidTaskException("scan.tasks." + definition.name() + ".schedule starts a run at each firing,"
                    + " but the task's run is " + run.property() + ", which never ends, so a firing would find it"
                    + " running every time: set scan.tasks." + definition.name() + ".run: once, so that each firing"
                    + " covers the ids there are then and ends, or remove schedule");
        }
    }

    /** A range task without a schedule. */
    public RangeTask(
            TaskDefinition definition, long rangeSize, Duration stallTimeout, RunMode run, Duration followGrace) {
        this(definition, rangeSize, stallTimeout, run, followGrace, null);
    }

    /** A range task with the {@linkplain #DEFAULT_FOLLOW_GRACE default follow grace}. */
    public RangeTask(TaskDefinition definition, long rangeSize, Duration stallTimeout, RunMode run) {
        this(definition, rangeSize, stallTimeout, run, DEFAULT_FOLLOW_GRACE);
    }

    /** This task with another definition (the same name), every range setting kept. */
    public RangeTask withDefinition(TaskDefinition definition) {
        return new RangeTask(definition, rangeSize, stallTimeout, run, followGrace, schedule);
    }

    /** This task with {@code schedule}, every other setting kept. */
    public RangeTask withSchedule(@Nullable Schedule schedule) {
        return new RangeTask(definition, rangeSize, stallTimeout, run, followGrace, schedule);
    }

    /** The task's name. */
    public String name() {
        return definition.name();
    }

    /** How many times a failing row is tried again at once before it is recorded as failed. */
    public int inPlaceRetries() {
        return definition.retryRules().inPlaceRetries();
    }

    /** How long a worker with nothing to claim, or a tail range with no new row, waits before it looks again. */
    public Duration idleInterval() {
        return definition.tiers().get(0).interval();
    }
}
