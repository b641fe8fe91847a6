package io.shardscan.jdbc;

import io.shardscan.testsupport.JvmZoneNotTheServers;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract on MariaDB, in a JVM whose zone is not the server's: its due-at test checks the due bound's zone. */
@ServerTests
class MariaDbTaskRunsTests extends TaskRunsContractTests {

    @RegisterExtension
    static final JvmZoneNotTheServers zone = new JvmZoneNotTheServers(() -> TestServers.mariadbDatabase("task_runs"));

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("task_runs");
    }
}
