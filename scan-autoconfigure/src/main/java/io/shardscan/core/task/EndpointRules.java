package io.shardscan.core.task;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A task's receivers (seed 003): the column that names each row's endpoint, and the settings of its
 * two-level blacklist and of the share of workers a slow endpoint may take. Immutable; checked when
 * its task is built.
 *
 * @param column the column naming a row's endpoint (a store id, a host, a tenant)
 * @param level1After failed tries of one row with an endpoint-down reason, one after the other in a
 *     pass, after which the endpoint is skipped on this node for the rest of the pass; also how
 *     often such a row is tried within the pass (1: no retry inside a pass)
 * @param level2Trips level-1 trips, on any node, within {@code level2Window} that ban the endpoint
 * @param level2Window how far back level-1 trips count
 * @param level2Ban how long a ban lasts before one probe row is let through
 * @param slowCall a call that takes longer marks its endpoint slow
 * @param slowShare the share of the task's workers a slow endpoint may hold, between 0 and 1
 */
public record EndpointRules(
        String column,
        int level1After,
        int level2Trips,
        Duration level2Window,
        Duration level2Ban,
        Duration slowCall,
        double slowShare) {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    /** The defaults: trip after 2 tries, ban after 3 trips in 5 minutes for 5 minutes, slow past 1 s, a quarter. */
    public static EndpointRules of(String column) {
        return new EndpointRules(
                column, 2, 3, Duration.ofMinutes(5), Duration.ofMinutes(5), Duration.ofSeconds(1), 0.25);
    }

    /** The same rules with another {@code level1After}. */
    public EndpointRules withLevel1After(int after) {
        return new EndpointRules(column, after, level2Trips, level2Window, level2Ban, slowCall, slowShare);
    }

    /** The same rules with other level-2 settings. */
    public EndpointRules withLevel2(int trips, Duration window, Duration ban) {
        return new EndpointRules(column, level1After, trips, window, ban, slowCall, slowShare);
    }

    /** The same rules with other slow-endpoint settings. */
    public EndpointRules withSlow(Duration call, double share) {
        return new EndpointRules(column, level1After, level2Trips, level2Window, level2Ban, call, share);
    }

    /** The endpoint of a fetched row: its endpoint column as text, or {@code null} when the column is NULL. */
    public @Nullable String endpointOf(Row row) {
        Object value = row.columns().get(column.toLowerCase(Locale.ROOT));
        return value == null ? null : value.toString();
    }

    /** How many calls to one slow endpoint may run at once on a node with {@code workers} workers: at least one. */
    public int slowSlots(int workers) {
        return Math.max(1, (int) Math.floor(workers * slowShare));
    }

    void check(String task, int workers) {
        if (column == null || !IDENTIFIER.matcher(column).matches()) {
            throw TaskDefinition.invalid(
                    task,
                    "endpoint-column",
                    "'" + column + "' is not a plain SQL identifier: name the column of the row's receiver,"
                            + " letters, digits and '_' only");
        }
        atLeastOne(task, "level1.after", level1After, "2");
        atLeastOne(task, "level2.trips", level2Trips, "3");
        positive(task, "level2.window", level2Window, "5m");
        positive(task, "level2.ban", level2Ban, "5m");
        positive(task, "slow-call", slowCall, "1s");
        if (!(slowShare > 0 && slowShare <= 1)) {
            throw TaskDefinition.invalid(
                    task,
                    "slow-share",
                    "must be above 0 and at most 1 (was " + slowShare + "): the share of the " + workers
                            + " workers one slow endpoint may hold, e.g. 0.25");
        }
    }

    private static void atLeastOne(String task, String property, int value, String example) {
        if (value < 1) {
            throw TaskDefinition.invalid(task, property, "must be at least 1 (was " + value + "), e.g. " + example);
        }
    }

    private static void positive(String task, String property, @Nullable Duration value, String example) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw TaskDefinition.invalid(
                    task, property, "must be a positive duration (was " + value + "), e.g. " + example);
        }
    }
}
