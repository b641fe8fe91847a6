package io.shardscan.dashboard;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.ScanContext;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.TestServers;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A Spring Boot application with one scan task, {@code orders}, on {@code tb_order}: each order is
 * recorded in {@code effect}; an order in {@link #POISONED} is marked dead ("card declined") once and
 * done when it runs again (after a requeue). Spring Security is on the test class path for
 * {@link DashboardSecurityTests} only: here it is left out, as in an application without it.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(
        exclude = {
            SecurityAutoConfiguration.class,
            UserDetailsServiceAutoConfiguration.class,
            ServletWebSecurityAutoConfiguration.class,
            SecurityFilterAutoConfiguration.class,
            ManagementWebSecurityAutoConfiguration.class
        })
@Import(DashboardTestApp.Orders.class)
class DashboardTestApp {

    static final String TASK = "orders";
    static final String DECLINED = "card declined";

    /** Orders that die once, shared by every node of the test JVM. */
    static final Set<Long> POISONED = ConcurrentHashMap.newKeySet();

    static class Orders {

        private final JdbcTemplate jdbc;

        Orders(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @ScanTask(TASK)
        public Outcome handle(Map<String, Object> order, ScanContext context) {
            long id = ((Number) order.get("order_id")).longValue();
            if (POISONED.remove(id)) {
                return Outcome.dead(DECLINED);
            }
            jdbc.update(
                    "INSERT INTO effect (order_id, user_id, node, epoch, seq) VALUES (?, ?, ?, ?, 0)",
                    id,
                    order.get("user_id"),
                    context.node(),
                    context.epoch());
            return Outcome.done();
        }
    }

    /** Points the application at the H2 database {@code database} and adds the task's properties for 8 shards. */
    static void register(DynamicPropertyRegistry registry, String database) {
        registry.add(
                "spring.datasource.url", () -> TestServers.h2Endpoint(database).url());
        addTaskProperties(registry);
    }

    /** Points the application at {@code database} (e.g. PostgreSQL) and adds the task's properties for 8 shards. */
    static void register(DynamicPropertyRegistry registry, JdbcEndpoint database) {
        registry.add("spring.datasource.url", database::url);
        registry.add("spring.datasource.username", database::user);
        registry.add("spring.datasource.password", database::password);
        addTaskProperties(registry);
    }

    private static void addTaskProperties(DynamicPropertyRegistry registry) {
        for (String pair : taskProperties(8)) {
            String[] kv = pair.split("=", 2);
            registry.add(kv[0], () -> kv[1]);
        }
    }

    /** The task's properties, as {@code key=value} pairs. */
    static String[] taskProperties(int shards) {
        String task = "scan.tasks." + TASK + ".";
        return new String[] {
            task + "table=tb_order",
            task + "id-column=order_id",
            task + "shard-key-column=user_id",
            task + "shards=" + shards,
            task + "workers=2",
            task + "page-size=50",
            task + "tiers[0].retries=0",
            task + "tiers[0].interval=300ms",
            task + "tiers[1].retries=1-15",
            task + "tiers[1].interval=1s",
        };
    }
}
