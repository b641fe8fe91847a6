package io.shardscan.mybatis;

import io.shardscan.core.task.ColumnTimes;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import org.jspecify.annotations.Nullable;

/**
 * The simple Java conversions from JDBC column values to property types; MyBatis would run a type
 * handler on the {@code ResultSet}, but a fetched row holds the values the driver returned already.
 */
final class ColumnValues {

    private ColumnValues() {}

    /**
     * Converts a column value to {@code target}.
     *
     * @return {@code null} for a NULL column
     * @throws IllegalArgumentException naming the column and the target when no conversion applies
     */
    static @Nullable Object convert(@Nullable Object value, Class<?> target, String column) {
        if (value == null) {
            return null;
        }
        Class<?> type = boxed(target);
        if (type.isInstance(value)) {
            return value;
        }
        Object converted = null;
        if (value instanceof Number number) {
            converted = fromNumber(number, type);
        } else if (value instanceof Timestamp timestamp) {
            converted = ColumnTimes.fromTimestamp(timestamp, type);
        } else if (value instanceof java.sql.Date date && type == LocalDate.class) {
            converted = date.toLocalDate();
        } else if (value instanceof LocalDateTime dateTime && type == Timestamp.class) {
            converted = Timestamp.valueOf(dateTime);
        } else if (value instanceof OffsetDateTime dateTime && type == Instant.class) {
            converted = dateTime.toInstant();
        } else if (value instanceof String text && type.isEnum()) {
            converted = enumConstant(type, text);
        } else if (value instanceof Character || value instanceof Boolean) {
            converted = type == String.class ? value.toString() : null;
        }
        if (converted == null && type == String.class) {
            converted = value.toString();
        }
        if (converted == null) {
            throw new IllegalArgumentException("cannot convert column '" + column + "' of type "
                    + value.getClass().getName() + " to " + target.getName());
        }
        return converted;
    }

    /** The default of a primitive type ({@code 0}, {@code false}), for a NULL column in a constructor argument. */
    static @Nullable Object defaultValue(Class<?> type) {
        if (!type.isPrimitive()) {
            return null;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        return fromNumber(0, boxed(type));
    }

    private static @Nullable Object fromNumber(Number number, Class<?> type) {
        if (type == Long.class) {
            return number.longValue();
        }
        if (type == Integer.class) {
            return number.intValue();
        }
        if (type == Short.class) {
            return number.shortValue();
        }
        if (type == Byte.class) {
            return number.byteValue();
        }
        if (type == Double.class) {
            return number.doubleValue();
        }
        if (type == Float.class) {
            return number.floatValue();
        }
        if (type == BigDecimal.class) {
            return number instanceof BigInteger big ? new BigDecimal(big) : new BigDecimal(number.toString());
        }
        if (type == BigInteger.class) {
            return new BigDecimal(number.toString()).toBigInteger();
        }
        if (type == Boolean.class) {
            return number.intValue() != 0;
        }
        return null;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumConstant(Class<?> type, String name) {
        return Enum.valueOf((Class<? extends Enum>) type, name);
    }

    private static Class<?> boxed(Class<?> type) {
        if (!type.isPrimitive()) {
            return type;
        }
        if (type == long.class) {
            return Long.class;
        }
        if (type == int.class) {
            return Integer.class;
        }
        if (type == boolean.class) {
            return Boolean.class;
        }
        if (type == double.class) {
            return Double.class;
        }
        if (type == float.class) {
            return Float.class;
        }
        if (type == short.class) {
            return Short.class;
        }
        if (type == byte.class) {
            return Byte.class;
        }
        return Character.class;
    }
}
