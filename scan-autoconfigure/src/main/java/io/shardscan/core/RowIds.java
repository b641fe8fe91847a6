package io.shardscan.core;

import io.shardscan.core.task.KeyType;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.TaskDefinition;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A status task's row id from what a caller gave, as {@link Row#idValue()} holds it: for a whole-number
 * id column a {@code Long}, which a caller gives as a number or as its decimal text; for a text or UUID
 * id column ({@link KeyType#TEXT}) its text, given as text or as a {@code UUID}.
 * Text is how a JSON client sends an id above 2^53 - 1: JavaScript reads larger numbers rounded to
 * the nearest double, another row's id. Every id that arrives from outside (the dashboard, code)
 * reaches the store through here, via {@link TaskView#readRow} and {@link TaskView#requeue}.
 * Stateless.
 */
final class RowIds {

    /** The largest integer a JavaScript number (a double) holds exactly: 2^53 - 1. */
    static final long MAX_EXACT_DOUBLE = (1L << 53) - 1;

    private static final Pattern DIGITS = Pattern.compile("-?[0-9]{1,19}");

    private RowIds() {}

    /**
     * The ids as {@link #parse} reads each, in order.
     *
     * @throws IllegalArgumentException at the first that {@link #parse} refuses
     */
    static List<Object> parse(TaskDefinition task, List<?> given) {
        return given.stream().map(id -> parse(task, id)).toList();
    }

    /**
     * The id {@code given} names. For a whole-number id column a {@code Long}, from a {@code Long},
     * {@code Integer}, {@code Short} or {@code Byte}, an integral {@code BigInteger} or {@code BigDecimal}
     * within a long, a whole {@code Double} or {@code Float} up to 2^53 - 1 (beyond it a double may be
     * another id rounded), or the decimal digits of one (an optional {@code -}, ASCII digits only). For
     * a text or UUID id column the text of a non-empty {@code CharSequence} or a {@code UUID}.
     *
     * @throws IllegalArgumentException for anything else, naming {@code given} and what the task's ids
     *     look like
     */
    static Object parse(TaskDefinition task, @Nullable Object given) {
        if (task.columns().idType() == KeyType.TEXT) {
            if (given instanceof UUID || (given instanceof CharSequence text && !text.isEmpty())) {
                return given.toString();
            }
            throw new IllegalArgumentException("Row id " + given + " is not an id of task " + task.name()
                    + ": its ids are" + " the text or UUIDs of column "
                    + task.columns().id() + " (id-type: text): give one as text");
        }
        return whole(task, given);
    }

    private static long whole(TaskDefinition task, @Nullable Object given) {
        if (given instanceof Long || given instanceof Integer || given instanceof Short || given instanceof Byte) {
            return ((Number) given).longValue();
        }
        try {
            if (given instanceof CharSequence text && DIGITS.matcher(text).matches()) {
                return Long.parseLong(text.toString());
            }
            if (given instanceof BigInteger integer) {
                return integer.longValueExact();
            }
            if (given instanceof BigDecimal decimal) {
                return decimal.toBigIntegerExact().longValueExact();
            }
        } catch (NumberFormatException | ArithmeticException e) {
            throw notAnId(task, given);
        }
        if ((given instanceof Double || given instanceof Float) && exact(((Number) given).doubleValue())) {
            return (long) ((Number) given).doubleValue();
        }
        throw notAnId(task, given);
    }

    private static boolean exact(double value) {
        return value == Math.rint(value) && Math.abs(value) <= MAX_EXACT_DOUBLE;
    }

    private static IllegalArgumentException notAnId(TaskDefinition task, @Nullable Object given) {
        String shown = given instanceof CharSequence ? "'" + given + "'" : String.valueOf(given);
        return new IllegalArgumentException("Row id " + shown + " is not an id of task " + task.name()
                + ": its ids are the whole numbers of column " + task.columns().id() + ", " + Long.MIN_VALUE + " to "
                + Long.MAX_VALUE + ", e.g. \"9007199254740993\": give them as text, as JavaScript rounds a number"
                + " above " + MAX_EXACT_DOUBLE + " to another row's id");
    }
}
