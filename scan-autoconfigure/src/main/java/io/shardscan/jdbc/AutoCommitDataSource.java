package io.shardscan.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The application's pool as Shardscan's own tables need it: a connection that does not autocommit
 * (HikariCP's {@code autoCommit=false}, a common setting in JPA applications) is switched to autocommit
 * while Shardscan holds it and switched back when it is closed, so that a lease, a heartbeat or a ban
 * written in one statement commits instead of being rolled back by the pool. Only for the stores that
 * never join an application's transaction (the coordinator, the endpoint bans, the range stores and a
 * range task's runs); Spring's transactions
 * on it set and restore autocommit themselves. Thread-safe.
 */
final class AutoCommitDataSource extends DelegatingDataSource {

    private AutoCommitDataSource(DataSource target) {
        super(target);
    }

    /** {@code dataSource} with its connections autocommitting while Shardscan holds them. */
    static DataSource of(DataSource dataSource) {
        return dataSource instanceof AutoCommitDataSource ? dataSource : new AutoCommitDataSource(dataSource);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return autoCommitting(obtainTargetDataSource().getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return autoCommitting(obtainTargetDataSource().getConnection(username, password));
    }

    private static Connection autoCommitting(Connection connection) throws SQLException {
        if (connection.getAutoCommit()) {
            return connection;
        }
        connection.setAutoCommit(true);
        return (Connection) Proxy.newProxyInstance(
                AutoCommitDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close") && !connection.isClosed()) {
                        // as the pool handed it out: a pool that does not reset it would keep autocommit on
                        connection.setAutoCommit(false);
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
