package io.shardscan.annotation;

import io.shardscan.core.Row;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import org.springframework.beans.BeanUtils;
import org.springframework.core.MethodParameter;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.util.ReflectionUtils;

/**
 * Binds a row to a record through its canonical constructor, reading each component's column by its
 * position in the page's layout, so columns no component names are never decoded. A component
 * without a column, or with a NULL one, gets {@code null}, or its default value when primitive.
 */
final class RecordRowBinder implements RowBinder {

    private final Constructor<?> constructor;
    private final String[] names;
    private final MemberPositions positions;
    private final TypeDescriptor[] types;

    private RecordRowBinder(Constructor<?> constructor, String[] names) {
        this.constructor = constructor;
        this.names = names;
        this.positions = new MemberPositions(List.of(names));
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
    public List<String> members() {
        return List.of(names);
    }

    @Override
    public Object bind(Row row) {
        int[] columns = positions.in(row.layout());
        Object[] args = new Object[names.length];
        for (int i = 0; i < names.length; i++) {
            args[i] = columns[i] < 0 ? null : RowBinder.convert(row.value(columns[i]), types[i], names[i]);
        }
        // instantiateClass puts default values in primitive parameters given null
        return BeanUtils.instantiateClass(constructor, args);
    }
}
