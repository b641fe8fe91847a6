package io.shardscan.core.task;

import org.jspecify.annotations.Nullable;

/**
 * What a handler says about one row; a handler that returns nothing (or {@code null}) means
 * {@link #done()}, one that throws means {@link #retryLater(String)} with the exception's message.
 *
 * @param kind what to write back
 * @param reason why, for {@link Kind#RETRY} and {@link Kind#DEAD}; kept in the last-error column
 * @param endpointDown whether a {@link Kind#RETRY} is the fault of the row's receiver, not of the row:
 *     it counts towards the endpoint's blacklist (see {@link EndpointRules})
 */
public record Outcome(Kind kind, @Nullable String reason, boolean endpointDown) {

    /** An outcome that is not an endpoint's fault. */
    public Outcome(Kind kind, @Nullable String reason) {
        this(kind, reason, false);
    }

    private static final Outcome DONE = new Outcome(Kind.DONE, null);
    private static final Outcome SKIP = new Outcome(Kind.SKIP, null);

    /** The kinds of outcome. */
    public enum Kind {
        /** The row is finished. */
        DONE,
        /** The row failed: its retry count goes up and it rests for its tier's interval. */
        RETRY,
        /** The row is untouched and comes up again in its tier's next pass; no retry is counted. */
        SKIP,
        /** The row is given up at once. */
        DEAD;

        /** How metrics and observations name the kind: {@code done}, {@code failed}, {@code skipped}, {@code dead}. */
        public String tag() {
            return switch (this) {
                case DONE -> "done";
                case RETRY -> "failed";
                case SKIP -> "skipped";
                case DEAD -> "dead";
            };
        }
    }

    /** The row is finished. */
    public static Outcome done() {
        return DONE;
    }

    /** The row failed and is retried after its tier's interval. */
    public static Outcome retryLater(String reason) {
        return new Outcome(Kind.RETRY, reason);
    }

    /** Leave the row pending as it is; it is fetched again in the next pass of its tier. */
    public static Outcome skip() {
        return SKIP;
    }

    /**
     * The row's receiver could not be reached: the row fails as with {@link #retryLater(String)},
     * and the failure counts towards the endpoint's blacklist.
     */
    public static Outcome endpointDown(String reason) {
        return new Outcome(Kind.RETRY, reason, true);
    }

    /** Give the row up now, whatever its retry count. */
    public static Outcome dead(String reason) {
        return new Outcome(Kind.DEAD, reason);
    }
}
