package io.shardscan.jdbc;

import io.shardscan.testsupport.TestServers;
import javax.sql.DataSource;

class H2ArchiveTests extends ArchiveContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.h2("archive");
    }
}
