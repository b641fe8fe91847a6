package io.shardscan.testsupport;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * A real {@link DataSource} whose result sets, while armed, throw an {@link Error} when one column is
 * read with {@code getObject}, as a driver decoding a value too large for the heap throws an
 * {@link OutOfMemoryError}: a hook for what a node says then, without filling the heap. Everything
 * else goes to the real database. Thread-safe.
 */
public final class FailingReadsDataSource {

    private final DataSource proxy;
    private final String column;
    private volatile Supplier<? extends Error> failure;

    /** Reads of {@code column} (by label, any case) fail once {@link #arm} was called. */
    public FailingReadsDataSource(DataSource target, String column) {
        this.column = column.toLowerCase(Locale.ROOT);
        this.proxy = proxy(DataSource.class, target);
    }

    /** The data source to hand to the code under test. */
    public DataSource dataSource() {
        return proxy;
    }

    /** From now on every read of the column throws what {@code failure} makes. */
    public FailingReadsDataSource arm(Supplier<? extends Error> failure) {
        this.failure = failure;
        return this;
    }

    @SuppressWarnings("unchecked")
    private <T> T proxy(Class<T> type, Object real) {
        return (T) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                interfaces(real, type),
                (self, method, args) -> invoke(real, method, args));
    }

    private Object invoke(Object real, Method method, Object[] args) throws Throwable {
        Supplier<? extends Error> armed = failure;
        if (armed != null
                && real instanceof ResultSet rs
                && method.getName().equals("getObject")
                && args[0] instanceof Integer index
                && rs.getMetaData()
                        .getColumnLabel(index)
                        .toLowerCase(Locale.ROOT)
                        .equals(column)) {
            throw armed.get();
        }
        Object result;
        try {
            result = method.invoke(real, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        if (result instanceof Connection connection) {
            return proxy(Connection.class, connection);
        }
        if (result instanceof Statement statement) {
            return proxy(Statement.class, statement);
        }
        if (result instanceof ResultSet rs) {
            return proxy(ResultSet.class, rs);
        }
        return result;
    }

    /** Every public interface of the real object, so a PreparedStatement stays one. */
    private static Class<?>[] interfaces(Object real, Class<?> type) {
        Set<Class<?>> all = new LinkedHashSet<>();
        all.add(type);
        for (Class<?> c = real.getClass(); c != null; c = c.getSuperclass()) {
            all.addAll(java.util.List.of(c.getInterfaces()));
        }
        if (real instanceof java.sql.PreparedStatement) {
            all.add(java.sql.PreparedStatement.class);
        }
        return all.stream()
                .filter(c -> java.lang.reflect.Modifier.isPublic(c.getModifiers()))
                .toArray(Class<?>[]::new);
    }
}
