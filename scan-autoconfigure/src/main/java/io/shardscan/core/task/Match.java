package io.shardscan.core.task;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One column of a task's match: the rows whose {@code column} equals one of {@code values}, or, with
 * no values, whose column is NULL. Values are kept as the configuration writes them; the store checks
 * them against the column's type. Immutable.
 *
 * @param column the column, a plain SQL identifier
 * @param values the values a row's column may have; empty for {@code IS NULL}
 */
public record Match(String column, List<String> values) {

    private static final Pattern WHOLE_NUMBER = Pattern.compile("[+-]?\\d+");

    public Match {
        Objects.requireNonNull(column, "column");
        values = List.copyOf(values);
    }

    /** The rows whose column equals one of {@code values} (at least one), compared as their text. */
    public static Match of(String column, Object... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("match of " + column + " needs at least one value; use isNull");
        }
        return new Match(column, Arrays.stream(values).map(String::valueOf).toList());
    }

    /** The rows whose column is NULL. */
    public static Match isNull(String column) {
        return new Match(column, List.of());
    }

    /** Whether this matches the rows whose column is NULL rather than values. */
    public boolean matchesNull() {
        return values.isEmpty();
    }

    /**
     * What a row must satisfy to match both this and {@code other}, a condition on the same column.
     *
     * @return that condition; {@code null} when no row can match both (no value in common, or NULL
     *     against values)
     */
    public @Nullable Match intersect(Match other) {
        if (matchesNull() || other.matchesNull()) {
            return matchesNull() && other.matchesNull() ? this : null;
        }
        List<String> common = new ArrayList<>();
        for (String value : values) {
            if (other.values.stream().anyMatch(v -> canonical(v).equals(canonical(value)))) {
                common.add(value);
            }
        }
        return common.isEmpty() ? null : new Match(column, common);
    }

    /** The condition as SQL-like text for messages: {@code biz_type = 3}, {@code IN (3, 4)} or {@code IS NULL}. */
    public String describe() {
        if (matchesNull()) {
            return column + " IS NULL";
        }
        return values.size() == 1 ? column + " = " + values.get(0) : column + " IN (" + String.join(", ", values) + ")";
    }

    /** One spelling per value for comparing two configurations: {@code 03} and {@code 3}, {@code TRUE} and {@code true}. */
    private static String canonical(String value) {
        String stripped = value.strip();
        if (WHOLE_NUMBER.matcher(stripped).matches()) {
            return new BigInteger(stripped).toString();
        }
        if (stripped.equalsIgnoreCase("true") || stripped.equalsIgnoreCase("false")) {
            return stripped.toLowerCase(Locale.ROOT);
        }
        return value;
    }
}
