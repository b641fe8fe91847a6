package io.shardscan.mybatis;

import io.shardscan.core.task.Row;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ibatis.mapping.ResultMap;
import org.apache.ibatis.mapping.ResultMapping;
import org.apache.ibatis.reflection.MetaObject;
import org.apache.ibatis.session.AutoMappingBehavior;
import org.apache.ibatis.session.Configuration;
import org.jspecify.annotations.Nullable;

/**
 * Maps fetched rows to the result types of a MyBatis {@link Configuration} the way MyBatis maps a
 * result set: the explicit column → property mappings of the type's result map first, then
 * auto-mapping of the remaining columns per the configuration's {@code autoMappingBehavior} and
 * {@code mapUnderscoreToCamelCase}; instances come from the configuration's object factory, records
 * through their canonical constructor. Column values are converted with simple Java conversions
 * (numbers, timestamps, enum names), not with the mappings' type handlers.
 *
 * <p>Thread-safe once the configuration is fully built, as MyBatis itself assumes.
 */
public final class MybatisRowMapper {

    private final Configuration configuration;
    private final Map<Class<?>, Optional<ResultMap>> resultMaps = new ConcurrentHashMap<>();

    public MybatisRowMapper(Configuration configuration) {
        this.configuration = Objects.requireNonNull(configuration, "configuration");
    }

    /**
     * Whether {@code type} is a MyBatis result type: a result map of the configuration maps to it, or a
     * type alias names it. JDK and MyBatis types (such as the built-in {@code map} alias) are not.
     */
    public boolean supports(Class<?> type) {
        Objects.requireNonNull(type, "type");
        String name = type.getName();
        if (type.isPrimitive()
                || type.isArray()
                || type.isInterface()
                || Modifier.isAbstract(type.getModifiers())
                || name.startsWith("java.")
                || name.startsWith("javax.")
                || name.startsWith("org.apache.ibatis.")) {
            return false;
        }
        return resultMap(type).isPresent()
                || configuration.getTypeAliasRegistry().getTypeAliases().containsValue(type);
    }

    /**
     * Maps one row to a new instance of {@code type}. A NULL column leaves its property unset (set to
     * {@code null} with {@code callSettersOnNulls}); a record component without a value gets
     * {@code null}, or its default when primitive.
     *
     * @throws IllegalArgumentException when the type is not {@linkplain #supports(Class) supported} or a
     *     column value cannot be converted to its property's type
     */
    public <T> T map(Row row, Class<T> type) {
        Objects.requireNonNull(row, "row");
        if (!supports(type)) {
            throw new IllegalArgumentException(type.getName() + " is not a MyBatis result type");
        }
        ResultMap resultMap = resultMap(type).orElse(null);
        Map<String, Object> columns = new HashMap<>();
        row.columns().forEach((name, value) -> columns.put(upper(name), value));
        return type.isRecord() ? record(row, columns, type, resultMap) : bean(row, columns, type, resultMap);
    }

    private <T> T bean(Row row, Map<String, Object> columns, Class<T> type, @Nullable ResultMap resultMap) {
        T target = configuration.getObjectFactory().create(type);
        MetaObject meta = configuration.newMetaObject(target);
        Set<String> mapped = new HashSet<>();
        if (resultMap != null) {
            for (ResultMapping mapping : resultMap.getPropertyResultMappings()) {
                if (flat(mapping) && mapping.getProperty() != null) {
                    String column = upper(mapping.getColumn());
                    mapped.add(column);
                    set(meta, mapping.getProperty(), columns.get(column), column);
                }
            }
        }
        if (autoMaps(resultMap)) {
            boolean camelCase = configuration.isMapUnderscoreToCamelCase();
            row.columns().forEach((column, value) -> {
                if (mapped.contains(upper(column))) {
                    return;
                }
                String property = meta.findProperty(column, camelCase);
                if (property == null
                        || !meta.hasSetter(property)
                        || (resultMap != null && resultMap.getMappedProperties().contains(property))
                        // like MyBatis, auto-mapping fills only properties it has a type handler for
                        || !configuration.getTypeHandlerRegistry().hasTypeHandler(meta.getSetterType(property))) {
                    return;
                }
                set(meta, property, value, column);
            });
        }
        return target;
    }

    private void set(MetaObject meta, String property, @Nullable Object value, String column) {
        Class<?> type = meta.getSetterType(property);
        if (value != null) {
            meta.setValue(property, ColumnValues.convert(value, type, column));
        } else if (configuration.isCallSettersOnNulls() && !type.isPrimitive()) {
            meta.setValue(property, null);
        }
    }

    private <T> T record(Row row, Map<String, Object> columns, Class<T> type, @Nullable ResultMap resultMap) {
        RecordComponent[] components = type.getRecordComponents();
        List<Class<?>> types = new ArrayList<>(components.length);
        List<Object> args = new ArrayList<>(components.length);
        for (int i = 0; i < components.length; i++) {
            String name = components[i].getName();
            String column = explicitColumn(resultMap, name, i, components.length);
            if (column == null && autoMaps(resultMap)) {
                column = autoColumn(row, name);
            }
            Class<?> componentType = components[i].getType();
            Object value =
                    column == null ? null : ColumnValues.convert(columns.get(upper(column)), componentType, column);
            types.add(componentType);
            args.add(value != null ? value : ColumnValues.defaultValue(componentType));
        }
        return configuration.getObjectFactory().create(type, types, args);
    }

    /** The column a result map names for a component: by {@code <arg name>}, by position, or by property. */
    private static @Nullable String explicitColumn(@Nullable ResultMap resultMap, String name, int index, int count) {
        if (resultMap == null) {
            return null;
        }
        List<ResultMapping> arguments = resultMap.getConstructorResultMappings();
        boolean positional = arguments.size() == count && arguments.stream().allMatch(a -> a.getProperty() == null);
        if (positional && flat(arguments.get(index))) {
            return arguments.get(index).getColumn();
        }
        List<ResultMapping> named = new ArrayList<>(arguments);
        named.addAll(resultMap.getPropertyResultMappings());
        return named.stream()
                .filter(mapping -> flat(mapping) && name.equals(mapping.getProperty()))
                .map(ResultMapping::getColumn)
                .findFirst()
                .orElse(null);
    }

    /** The row column auto-mapping would give a component: same name ignoring case, or its camelCase form. */
    private @Nullable String autoColumn(Row row, String component) {
        boolean camelCase = configuration.isMapUnderscoreToCamelCase();
        for (String column : row.columns().keySet()) {
            String candidate = camelCase ? column.replace("_", "") : column;
            if (candidate.equalsIgnoreCase(component)) {
                return column;
            }
        }
        return null;
    }

    private boolean autoMaps(@Nullable ResultMap resultMap) {
        if (resultMap != null && resultMap.getAutoMapping() != null) {
            return resultMap.getAutoMapping();
        }
        AutoMappingBehavior behavior = configuration.getAutoMappingBehavior();
        return behavior == AutoMappingBehavior.FULL
                || (behavior == AutoMappingBehavior.PARTIAL && (resultMap == null || !resultMap.hasNestedResultMaps()));
    }

    /**
     * The result map for a type: among those mapping to it, the first by id that has explicit
     * mappings, else any (an inline map of a {@code resultType} statement), else none.
     */
    private Optional<ResultMap> resultMap(Class<?> type) {
        return resultMaps.computeIfAbsent(type, t -> {
            // full ids only: a short id is a second key of the same map, or marks an ambiguity
            List<ResultMap> candidates = configuration.getResultMapNames().stream()
                    .filter(id -> id.contains("."))
                    .sorted()
                    .map(configuration::getResultMap)
                    .filter(map -> map.getType() == t)
                    .toList();
            return candidates.stream()
                    .filter(map -> !map.getResultMappings().isEmpty())
                    .findFirst()
                    .or(() -> candidates.stream().min(Comparator.comparing(ResultMap::getId)));
        });
    }

    /** Whether a mapping reads one column of this row: no nested map or query, no composite column. */
    private static boolean flat(ResultMapping mapping) {
        return mapping.getColumn() != null
                && mapping.getNestedResultMapId() == null
                && mapping.getNestedQueryId() == null
                && !mapping.isCompositeResult();
    }

    private static String upper(String name) {
        return name.toUpperCase(Locale.ROOT);
    }
}
