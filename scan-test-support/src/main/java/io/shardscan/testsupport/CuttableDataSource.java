package io.shardscan.testsupport;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A real {@link DataSource} whose connections can be cut: while cut, {@code getConnection} fails as
 * Hikari's does when the database is gone ({@link SQLTransientConnectionException}, "Connection is
 * not available"). For tests of what a node shows while its database does not answer. Thread-safe.
 */
public final class CuttableDataSource extends DelegatingDataSource {

    private volatile boolean cut;

    public CuttableDataSource(DataSource target) {
        super(target);
    }

    public void cut() {
        cut = true;
    }

    public void heal() {
        cut = false;
    }

    @Override
    public Connection getConnection() throws SQLException {
        refuseWhileCut();
        return super.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        refuseWhileCut();
        return super.getConnection(username, password);
    }

    private void refuseWhileCut() throws SQLTransientConnectionException {
        if (cut) {
            throw new SQLTransientConnectionException(
                    "scan-test - Connection is not available, request timed out after 0ms (cut by the test)");
        }
    }
}
