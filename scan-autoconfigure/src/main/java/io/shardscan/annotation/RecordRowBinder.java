package io.shardscan.annotation;

import io.shardscan.core.Row;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Map;
import org.springframework.beans.BeanUtils;
import org.springframework.core.MethodParameter;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.util.ReflectionUtils;

/**
 * Binds a row to a record through its canonical constructor. A component without a column, or with a
 * NULL one, gets {@code null}, or its default value when primitive.
 */
final class RecordRowBinder implements RowBinder {

    private final Constructor<?> constructor;
    private final String[] names;
    private final String[] keys;
    private final TypeDescriptor[] types;

    private RecordRowBinder(Constructor<?> constructor, String[] names) {
        this.constructor = constructor;
        this.names = names;
        this.keys = Arrays.stream(names).map(RowBinder::key).toArray(String[]::new);
        this.types = new TypeDescriptor[names.length];
        for (int i = 0; i < names.length; i++) {
            types[i] = new TypeDescriptor(MethodParameter.forExecutable(constructor, i));
        }
    }

    static RecordRowBinder of(Class<?> type) {
        RecordComponent[] components = type.getRecordComponents();
        Class<?>[] parameterTypes =
                Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new);
        try {
            Constructor<?> constructor = type.getDeclaredConstructor(parameterTypes);
            ReflectionUtils.makeAccessible(constructor);
            return new RecordRowBinder(
                    constructor,
                    Arrays.stream(components).map(RecordComponent::getName).toArray(String[]::new));
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("record " + type.getName() + " has no canonical constructor", e);
        }
    }

    @Override
    public java.util.List<String> members() {
        return java.util.List.of(names);
    }

    @Override
    public Object bind(Row row) {
        Map<String, Object> columns = RowBinder.columnsByKey(row);
        Object[] args = new Object[keys.length];
        for (int i = 0; i < keys.length; i++) {
            args[i] = RowBinder.convert(columns.get(keys[i]), types[i], names[i]);
        }
        // instantiateClass puts default values in primitive parameters given null
        return BeanUtils.instantiateClass(constructor, args);
    }
}
