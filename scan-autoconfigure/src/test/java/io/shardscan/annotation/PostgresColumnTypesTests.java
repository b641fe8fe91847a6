package io.shardscan.annotation;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import javax.sql.DataSource;

@ServerTests
class PostgresColumnTypesTests extends ColumnTypesContractTests {

    @Override
    DataSource dataSource() {
        return TestServers.postgresDatabase("column_types");
    }

    @Override
    List<String> createTable() {
        return List.of(
                "DROP TYPE IF EXISTS message_channel",
                "CREATE TYPE message_channel AS ENUM ('SMS', 'MAIL')",
                "CREATE TABLE tb_message (id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL, status SMALLINT NOT NULL,"
                        + " retry_count INT NOT NULL, updated_at TIMESTAMP NOT NULL, last_error VARCHAR(500), doc JSONB, ref UUID,"
                        + " ref_text UUID, channel message_channel, payload BYTEA, amount NUMERIC(12, 2),"
                        + " tags INT[], body TEXT, note INT)");
    }

    @Override
    String insertValues() {
        return "'{\"to\": \"+155501\", \"n\": 1}', '" + REF + "', '" + REF + "', 'MAIL', '\\x0102ff', 1234.50,"
                + " ARRAY[3, 1, 2], 'a long body'";
    }
}
