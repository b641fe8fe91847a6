package io.shardscan.core.task;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A failure tier: rows whose retry count lies in {@code [minRetries, maxRetries]} are scanned
 * every {@code interval}, and a failed row becomes eligible again no sooner than {@code interval}
 * after its last failure. Immutable.
 *
 * @param minRetries the lowest retry count of this tier, inclusive
 * @param maxRetries the highest retry count of this tier, inclusive
 * @param interval how long an empty scan of this tier waits, and how long a failed row rests
 */
public record Tier(int minRetries, int maxRetries, Duration interval) {

    private static final Pattern RANGE = Pattern.compile("\\s*(\\d{1,9})\\s*(?:-\\s*(\\d{1,9})\\s*)?");

    public Tier {
        Objects.requireNonNull(interval, "interval");
        if (minRetries < 0 || maxRetries < minRetries) {
            throw new IllegalArgumentException("retries range " + minRetries + "-" + maxRetries + " is empty");
        }
        if (interval.isNegative()) {
            throw new IllegalArgumentException("interval " + interval + " is negative");
        }
    }

    /**
     * Parses a retries range such as {@code "0"} or {@code "1-5"}.
     *
     * @throws IllegalArgumentException when the text is not {@code N} or {@code N-M} with {@code N <= M}
     */
    public static Tier of(String retries, Duration interval) {
        Matcher m = RANGE.matcher(retries == null ? "" : retries);
        if (!m.matches()) {
            throw new IllegalArgumentException("retries '" + retries + "' is not a count or a range like '1-5'");
        }
        int min = Integer.parseInt(m.group(1));
        int max = m.group(2) == null ? min : Integer.parseInt(m.group(2));
        if (max < min) {
            throw new IllegalArgumentException("retries '" + retries + "' ends before it starts");
        }
        return new Tier(min, max, interval);
    }

    /** Whether a row that failed {@code retries} times belongs to this tier. */
    public boolean covers(int retries) {
        return retries >= minRetries && retries <= maxRetries;
    }

    /** The range as written in configuration, {@code "3"} or {@code "1-5"}. */
    public String label() {
        return minRetries == maxRetries ? Integer.toString(minRetries) : minRetries + "-" + maxRetries;
    }
}
