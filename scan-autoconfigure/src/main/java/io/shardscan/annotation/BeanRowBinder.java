package io.shardscan.annotation;

import io.shardscan.core.task.Row;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.BeanUtils;
import org.springframework.core.MethodParameter;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.util.ReflectionUtils;

/**
 * Binds a row to a JavaBean: no-arg constructor, then one setter call per column that has a
 * property, read by its position in the page's layout, so columns without a property are never
 * decoded. Properties without a column, and primitive ones whose column is NULL, keep their value.
 */
final class BeanRowBinder implements RowBinder {

    private final Constructor<?> constructor;
    private final Setter[] setters;
    private final MemberPositions positions;

    private BeanRowBinder(Constructor<?> constructor, List<Setter> setters) {
        this.constructor = constructor;
        this.setters = setters.toArray(Setter[]::new);
        this.positions = new MemberPositions(setters.stream().map(Setter::name).toList());
    }

    static BeanRowBinder of(Class<?> type) {
        Constructor<?> constructor;
        try {
            constructor = type.getDeclaredConstructor();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(
                    "its row type " + type.getName() + " is not a record and has no no-arg constructor", e);
        }
        ReflectionUtils.makeAccessible(constructor);
        Map<String, Setter> setters = new LinkedHashMap<>();
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            Method write = property.getWriteMethod();
            if (write != null) {
                ReflectionUtils.makeAccessible(write);
                setters.put(
                        RowBinder.key(property.getName()),
                        new Setter(property.getName(), write, new TypeDescriptor(new MethodParameter(write, 0))));
            }
        }
        if (setters.isEmpty()) {
            throw new IllegalArgumentException(
                    "its row type " + type.getName() + " is not a record and has no setters to bind columns to");
        }
        return new BeanRowBinder(constructor, List.copyOf(setters.values()));
    }

    @Override
    public List<String> members() {
        return Arrays.stream(setters).map(Setter::name).toList();
    }

    @Override
    public List<TypeDescriptor> memberTypes() {
        return Arrays.stream(setters).map(Setter::type).toList();
    }

    @Override
    public Object bind(Row row) {
        Object bean = BeanUtils.instantiateClass(constructor);
        int[] columns = positions.in(row.layout());
        for (int i = 0; i < setters.length; i++) {
            if (columns[i] < 0) {
                continue;
            }
            Setter setter = setters[i];
            Object value = RowBinder.convert(row.value(columns[i]), setter.type(), setter.name());
            if (value != null || !setter.type().isPrimitive()) {
                ReflectionUtils.invokeMethod(setter.method(), bean, value);
            }
        }
        return bean;
    }

    private record Setter(String name, Method method, TypeDescriptor type) {}
}
