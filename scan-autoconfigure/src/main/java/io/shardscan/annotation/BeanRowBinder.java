package io.shardscan.annotation;

import io.shardscan.core.Row;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.BeanUtils;
import org.springframework.core.MethodParameter;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.util.ReflectionUtils;

/**
 * Binds a row to a JavaBean: no-arg constructor, then one setter call per column that has a
 * property. Properties without a column, and primitive ones whose column is NULL, keep their value.
 */
final class BeanRowBinder implements RowBinder {

    private final Constructor<?> constructor;
    private final Map<String, Setter> setters;

    private BeanRowBinder(Constructor<?> constructor, Map<String, Setter> setters) {
        this.constructor = constructor;
        this.setters = setters;
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
        return new BeanRowBinder(constructor, setters);
    }

    @Override
    public java.util.List<String> members() {
        return setters.values().stream().map(Setter::name).toList();
    }

    @Override
    public Object bind(Row row) {
        Object bean = BeanUtils.instantiateClass(constructor);
        Map<String, Object> columns = RowBinder.columnsByKey(row);
        setters.forEach((key, setter) -> {
            if (!columns.containsKey(key)) {
                return;
            }
            Object value = RowBinder.convert(columns.get(key), setter.type(), setter.name());
            if (value != null || !setter.type().isPrimitive()) {
                ReflectionUtils.invokeMethod(setter.method(), bean, value);
            }
        });
        return bean;
    }

    private record Setter(String name, Method method, TypeDescriptor type) {}
}
