package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.InvalidTaskException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;

/** Which store failures mean the database was not reached, as Spring's JDBC support wraps them. */
class StoreFailureTests {

    @Test
    void aStatementTheDatabaseRefusedReachedIt() {
        SQLException conversion = new SQLException(
                "Cannot convert the column of type TIMESTAMPTZ to requested type java.time.LocalDateTime.", "42821");
        assertThat(StoreFailure.unreachable(new BadSqlGrammarException("fetch", "SELECT", conversion)))
                .isFalse();
        assertThat(StoreFailure.unreachable(new UncategorizedSQLException(
                        "fetch", "SELECT", new SQLException("Data conversion error", "22018"))))
                .isFalse();
        assertThat(StoreFailure.unreachable(
                        new DataIntegrityViolationException("write", new SQLException("not null", "23502"))))
                .isFalse();
        assertThat(StoreFailure.unreachable(
                        new InvalidTaskException("scan.tasks.orders: table tb_order does not exist")))
                .isFalse();
    }

    /** Out of memory decoding a page, a class gone from a replaced jar: the node failed, and the line says so. */
    @Test
    void anErrorIsTheNodesOwnFailureNotAnUnreachableDatabase() {
        assertThat(StoreFailure.unreachable(new OutOfMemoryError("Java heap space")))
                .isFalse();
        assertThat(StoreFailure.unreachable(new NoClassDefFoundError("io/shardscan/sample/OrderSms")))
                .isFalse();
        assertThat(StoreFailure.describe(new OutOfMemoryError("Java heap space")))
                .startsWith("java.lang.OutOfMemoryError: Java heap space; this node ran out of memory")
                .contains("page-size")
                .doesNotContain("not reached");
        assertThat(StoreFailure.describe(new StackOverflowError()))
                .isEqualTo("java.lang.StackOverflowError; this node's JVM failed, not the database");
    }

    @Test
    void aConnectionFailureATimeoutOrAnUnknownFailureDidNot() {
        assertThat(StoreFailure.unreachable(new CannotGetJdbcConnectionException(
                        "pool", new SQLTransientConnectionException("Connection is not available", "08001"))))
                .isTrue();
        assertThat(StoreFailure.unreachable(new DataAccessResourceFailureException(
                        "fetch", new SQLException("An I/O error occurred while sending to the backend.", "08006"))))
                .isTrue();
        assertThat(StoreFailure.unreachable(
                        new QueryTimeoutException("fetch", new SQLTimeoutException("canceled", "57014"))))
                .isTrue();
        assertThat(StoreFailure.unreachable(new IllegalStateException("no SQLException tells")))
                .isTrue();
    }
}
