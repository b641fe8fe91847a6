package io.shardscan.annotation;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import javax.sql.DataSource;

@ServerTests
class MariaDbColumnTypesTests extends ColumnTypesContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.mariadbDatabase("column_types");
    }

    @Override
    List<String> createTable() {
        return List.of("CREATE TABLE tb_message (id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                + " status SMALLINT NOT NULL, retry_count INT NOT NULL, updated_at DATETIME(6) NOT NULL, last_error VARCHAR(500), doc JSON,"
                + " ref UUID, ref_text UUID, channel ENUM('SMS', 'MAIL'), payload BLOB, amount DECIMAL(12, 2),"
                + " tags TEXT, body LONGTEXT, note INT)");
    }

    @Override
    String insertValues() {
        return "'{\"to\": \"+155501\", \"n\": 1}', '" + REF + "', '" + REF + "', 'MAIL', X'0102ff', 1234.50, NULL,"
                + " 'a long body'";
    }

    @Override
    boolean hasArrays() {
        return false;
    }
}
