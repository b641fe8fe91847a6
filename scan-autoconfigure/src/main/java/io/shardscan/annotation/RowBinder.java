package io.shardscan.annotation;

import io.shardscan.core.task.ColumnTimes;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowColumns;
import java.lang.reflect.Modifier;
import java.sql.Timestamp;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.core.convert.support.DefaultConversionService;
import org.springframework.util.ClassUtils;

/** Turns a fetched row into the object a handler method takes; thread-safe. */
@FunctionalInterface
interface RowBinder {

    /** Binds one row; throws when a column value cannot be converted, which fails the row. */
    Object bind(Row row);

    /**
     * The record components or bean properties this binder fills from columns of the same
     * {@link #key(String) key}; empty when it takes whatever columns there are.
     */
    default List<String> members() {
        return List.of();
    }

    /** The types of {@link #members()}, in the same order. */
    default List<TypeDescriptor> memberTypes() {
        return List.of();
    }

    /**
     * Whether a column value of class {@code held} (as a fetched row holds it) converts to a member of
     * type {@code target}, as {@link #convert} would; {@code true} for a class this class loader does
     * not see, whose values are then converted, or not, row by row.
     */
    static boolean convertible(String held, TypeDescriptor target) {
        Class<?> source;
        try {
            source = ClassUtils.forName(held, RowBinder.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return true;
        }
        if (ClassUtils.resolvePrimitiveIfNecessary(target.getObjectType()).isAssignableFrom(source)
                || (source == Timestamp.class && ColumnTimes.TARGETS.contains(target.getObjectType()))) {
            return true;
        }
        return DefaultConversionService.getSharedInstance().canConvert(TypeDescriptor.valueOf(source), target);
    }

    /**
     * The columns a fetch must read for this binder: those matching its {@link #members()}, or every
     * column when it takes whatever columns there are.
     */
    default RowColumns columns() {
        return members().isEmpty() ? RowColumns.ALL : RowColumns.matching(members());
    }

    /**
     * The binder for a handler's row type.
     *
     * @throws IllegalArgumentException naming why the type cannot take a row
     */
    static RowBinder forType(ResolvableType type) {
        return forType(type, null);
    }

    /**
     * The binder for a handler's row type, taking {@code mapper}'s mapping for the types it supports.
     *
     * @throws IllegalArgumentException naming why the type cannot take a row
     */
    static RowBinder forType(ResolvableType type, @Nullable RowTypeMapper mapper) {
        Class<?> raw = type.resolve();
        if (raw == null || raw == Object.class) {
            throw new IllegalArgumentException("its row type " + type + " is not a concrete type");
        }
        if (raw == Row.class) {
            return row -> row;
        }
        if (raw == Map.class) {
            Class<?> key = type.getGeneric(0).resolve();
            Class<?> value = type.getGeneric(1).resolve();
            if ((key != null && key != String.class) || (value != null && value != Object.class)) {
                throw new IllegalArgumentException(
                        "its row type " + type + " is not Map<String, Object>: columns are keyed by name");
            }
            return Row::columns;
        }
        if (mapper != null && mapper.supports(raw)) {
            return row -> mapper.map(row, raw);
        }
        if (raw.isRecord()) {
            return RecordRowBinder.of(raw);
        }
        if (raw.isPrimitive()
                || raw.isArray()
                || raw.isEnum()
                || raw.isInterface()
                || Modifier.isAbstract(raw.getModifiers())
                || raw.getName().startsWith("java.")) {
            throw new IllegalArgumentException("its row type " + type.toString() + " is not a record or a JavaBean");
        }
        return BeanRowBinder.of(raw);
    }

    /** The matching key of a column, component or property name: {@link RowColumns#key(String)}. */
    static String key(String name) {
        return RowColumns.key(name);
    }

    /**
     * The type whose values a member of type {@code target} takes as they are, without conversion;
     * {@code null} when every value is converted (collections, arrays and maps).
     */
    static @Nullable Class<?> takenAsIs(TypeDescriptor target) {
        return target.isCollection() || target.isArray() || target.isMap() ? null : target.getObjectType();
    }

    /** The classes of number column values, which bind to any other number type or to String. */
    Set<String> NUMBERS = Set.of(
            "java.lang.Short",
            "java.lang.Integer",
            "java.lang.Long",
            "java.lang.Float",
            "java.lang.Double",
            "java.math.BigDecimal",
            "java.math.BigInteger");

    /** The other member types a column value of class {@code held} binds to, for a message: " (…)" or "". */
    static String alsoWorks(String held) {
        if (held.equals(Timestamp.class.getName())) {
            return " (Instant, OffsetDateTime, ZonedDateTime, LocalDateTime, LocalDate)";
        }
        if (held.equals(String.class.getName())) {
            return " (such as an enum by name, UUID or a number)";
        }
        if (NUMBERS.contains(held)) {
            return " (such as another number type or String)";
        }
        return "";
    }

    /**
     * Converts a column value to a component's or property's type.
     *
     * @throws IllegalArgumentException naming the column and the target when it cannot
     */
    static @Nullable Object convert(@Nullable Object value, TypeDescriptor target, String member) {
        if (value == null) {
            return null;
        }
        Class<?> asIs = takenAsIs(target);
        if (asIs != null && asIs.isInstance(value)) {
            // what the conversion service returns too, without looking up a converter per value
            return value;
        }
        try {
            if (value instanceof Timestamp timestamp && ColumnTimes.TARGETS.contains(target.getObjectType())) {
                return ColumnTimes.fromTimestamp(timestamp, target.getObjectType());
            }
            return DefaultConversionService.getSharedInstance().convert(value, TypeDescriptor.forObject(value), target);
        } catch (ConversionException e) {
            throw new IllegalArgumentException(
                    "cannot convert column value of type " + value.getClass().getName() + " to " + target + " for '"
                            + member + "': " + e.getMessage() + ". Give '" + member + "' a type the column converts"
                            + " to"
                            + (value instanceof Timestamp
                                    ? alsoWorks(Timestamp.class.getName())
                                    : ", e.g. " + value.getClass().getSimpleName()),
                    e);
        }
    }
}
