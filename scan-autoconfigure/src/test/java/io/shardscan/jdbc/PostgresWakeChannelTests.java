package io.shardscan.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The PostgreSQL wake channel delivers what any node publishes on {@code scan_wake}, only for its own
 * tasks, and listens again on a new connection after its connection is killed.
 */
@ServerTests
class PostgresWakeChannelTests {

    final DataSource dataSource = TestServers.postgresDatabase("wake_channel");
    final PostgresWakeChannel channel = new PostgresWakeChannel(dataSource);
    final List<String> received = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        channel.close();
    }

    @Test
    void listensAgainAfterItsConnectionIsKilled() {
        channel.open(Set.of("orders"), (task, shards) -> received.add(task + ":" + shards));
        PostgresWakeChannel publisher = new PostgresWakeChannel(dataSource);
        await("the first wake-up").pollInterval(Duration.ofMillis(200)).until(() -> {
            publisher.publish("other-task", List.of(1));
            publisher.publish("orders", List.of(3, 17));
            return !received.isEmpty();
        });
        assertThat(received).allMatch("orders:[3, 17]"::equals);

        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        List<Integer> killed = jdbc.queryForList(
                "SELECT pg_terminate_backend(pid)::int FROM pg_stat_activity WHERE query = 'LISTEN scan_wake'"
                        + " AND pid <> pg_backend_pid()",
                Integer.class);
        assertThat(killed).as("the listening connection, killed").containsExactly(1);
        received.clear();

        await("a wake-up after the connection came back")
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    publisher.publish("orders", List.of(5));
                    return received.contains("orders:[5]");
                });
    }
}
