package io.shardscan.annotation;

import io.shardscan.testsupport.TestServers;
import java.util.List;
import javax.sql.DataSource;

class H2ColumnTypesTests extends ColumnTypesContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.h2("column_types");
    }

    @Override
    List<String> createTable() {
        return List.of("CREATE TABLE tb_message (id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL,"
                + " status SMALLINT NOT NULL, retry_count INT NOT NULL, updated_at TIMESTAMP NOT NULL, last_error VARCHAR(500), doc JSON,"
                + " ref UUID, ref_text UUID, channel ENUM('SMS', 'MAIL'), payload BLOB, amount NUMERIC(12, 2),"
                + " tags INTEGER ARRAY, body CLOB, note INT)");
    }

    @Override
    String insertValues() {
        return "JSON '{\"to\": \"+155501\", \"n\": 1}', '" + REF + "', '" + REF + "', 'MAIL', X'0102ff', 1234.50,"
                + " ARRAY[3, 1, 2], 'a long body'";
    }
}
