package io.shardscan.testsupport;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A real {@link DataSource} that counts the statements run through it on the client side: every
 * {@code execute…} call of a statement it handed out (a batch counts once), by the statement's
 * first words, for a test that measures how many statements the engine sends to the database.
 * Thread-safe.
 */
public final class CountingDataSource {

    private final DataSource target;
    private final DataSource counting;
    private final AtomicLong total = new AtomicLong();
    private final Map<String, AtomicLong> byKind = new ConcurrentHashMap<>();

    public CountingDataSource(DataSource target) {
        this.target = target;
        this.counting = proxy(DataSource.class, target, null);
    }

    /** The data source to hand to the code under test. */
    public DataSource dataSource() {
        return counting;
    }

    /** Statements run so far. */
    public long total() {
        return total.get();
    }

    /** Statements run so far by their first 60 characters, for a failure message. */
    public Map<String, Long> byKind() {
        Map<String, Long> copy = new TreeMap<>();
        byKind.forEach((kind, count) -> copy.put(kind, count.get()));
        return copy;
    }

    /** The unwrapped data source. */
    public DataSource target() {
        return target;
    }

    @SuppressWarnings("unchecked")
    private <T> T proxy(Class<T> type, Object real, String sql) {
        InvocationHandler handler = (proxy, method, args) -> invoke(real, method, args, sql);
        return (T) Proxy.newProxyInstance(getClass().getClassLoader(), interfaces(real, type), handler);
    }

    private Object invoke(Object real, Method method, Object[] args, String sql) throws Throwable {
        Object result;
        try {
            result = method.invoke(real, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        String name = method.getName();
        if (result instanceof Connection connection && name.equals("getConnection")) {
            return proxy(Connection.class, connection, null);
        }
        if (result instanceof Statement statement && (name.startsWith("prepare") || name.equals("createStatement"))) {
            String text = args != null && args.length > 0 && args[0] instanceof String s ? s : null;
            return proxy(Statement.class, statement, text);
        }
        if (real instanceof Statement && name.startsWith("execute")) {
            String text = sql != null ? sql : args != null && args.length > 0 && args[0] instanceof String s ? s : "?";
            total.incrementAndGet();
            String kind = text.length() > 60 ? text.substring(0, 60) : text;
            byKind.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        }
        return result;
    }

    /** Every interface of the real object, so a PreparedStatement stays one. */
    private static Class<?>[] interfaces(Object real, Class<?> type) {
        java.util.Set<Class<?>> all = new java.util.LinkedHashSet<>();
        all.add(type);
        for (Class<?> c = real.getClass(); c != null; c = c.getSuperclass()) {
            all.addAll(java.util.List.of(c.getInterfaces()));
        }
        if (real instanceof java.sql.CallableStatement) {
            all.add(java.sql.CallableStatement.class);
        } else if (real instanceof java.sql.PreparedStatement) {
            all.add(java.sql.PreparedStatement.class);
        }
        return all.stream()
                .filter(c -> java.lang.reflect.Modifier.isPublic(c.getModifiers()))
                .toArray(Class<?>[]::new);
    }
}
