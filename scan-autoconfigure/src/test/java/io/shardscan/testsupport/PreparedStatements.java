package io.shardscan.testsupport;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * A real {@link DataSource} that keeps the text of every statement prepared through it, for a test that
 * asks what one statement held (which tables a probe named). Thread-safe.
 */
public final class PreparedStatements {

    private final List<String> prepared = new CopyOnWriteArrayList<>();
    private final DataSource dataSource;

    public PreparedStatements(DataSource target) {
        this.dataSource = (DataSource) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = call(target, method, args);
                    return result instanceof Connection connection ? connection(connection) : result;
                });
    }

    private Connection connection(Connection target) {
        return (Connection) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("prepare") && args != null && args[0] instanceof String sql) {
                        prepared.add(sql);
                    }
                    return call(target, method, args);
                });
    }

    private static Object call(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The data source to hand to the code under test. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** The statements prepared so far, oldest first. */
    public List<String> prepared() {
        return List.copyOf(prepared);
    }

    /** Forgets the statements prepared so far. */
    public void clear() {
        prepared.clear();
    }
}
