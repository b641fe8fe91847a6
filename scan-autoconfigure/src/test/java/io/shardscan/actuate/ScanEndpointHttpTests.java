package io.shardscan.actuate;

import static io.shardscan.actuate.EndpointNode.SHARDS;
import static io.shardscan.actuate.EndpointNode.TASK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardscan.core.TaskView;
import io.shardscan.testsupport.LeaseTicks;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;

/**
 * The scan endpoint over real HTTP on two nodes sharing a PostgreSQL table and Redis leases: node
 * {@code a} accepts writes, node {@code b} refuses them. The tests run in order on the same nodes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ServerTests
class ScanEndpointHttpTests {

    private static final String PATH = "/actuator/scan/" + TASK;
    private static final int ORDERS = 1000;

    private OrderTable table;
    private EndpointNode a;
    private EndpointNode b;

    @BeforeAll
    void startTwoNodes() {
        table = new OrderTable(TestServers.postgresDatabase("endpoint"))
                .recreate(SHARDS, true)
                .coordinationTables();
        a = EndpointNode.start("a", true);
        b = EndpointNode.start("b", false);
    }

    @AfterAll
    void stopNodes() {
        for (EndpointNode node : new EndpointNode[] {a, b}) {
            if (node != null) {
                node.close();
            }
        }
    }

    @Test
    @Order(1)
    void bothNodesSeeBothMembersAndTheSameOwnerForEveryShard() throws Exception {
        await().untilAsserted(() -> {
            JsonNode fromA = a.get("/actuator/scan").path("tasks").path(TASK);
            JsonNode fromB = b.get("/actuator/scan").path("tasks").path(TASK);
            Map<Integer, String> owners = owners(fromA);
            assertThat(owners).hasSize(SHARDS).doesNotContainValue(null);
            assertThat(owners(fromB)).isEqualTo(owners);
            for (JsonNode view : List.of(fromA, fromB)) {
                assertThat(view.path("members").findValuesAsString("node")).containsExactlyInAnyOrder("a", "b");
                int owned = 0;
                for (JsonNode member : view.path("members")) {
                    owned += member.path("ownedShards").asInt();
                }
                assertThat(owned).isEqualTo(SHARDS);
            }
        });
        JsonNode scan = a.get("/actuator/scan");
        assertThat(scan.path("node").asString()).isEqualTo("a");
        JsonNode task = scan.path("tasks").path(TASK);
        assertThat(task.path("state").asString()).isEqualTo("RUNNING");
        assertThat(task.path("coordinator").asString()).isEqualTo("redis");
        assertThat(task.path("shards").asInt()).isEqualTo(SHARDS);
        assertThat(b.get(PATH).path("ownership")).hasSize(SHARDS);
    }

    @Test
    @Order(2)
    void answersUnknownTasksWith404AndRefusesWritesWhereTheyAreOff() throws Exception {
        assertThat(a.send("/actuator/scan/nope", null).statusCode()).isEqualTo(404);
        assertThat(a.send("/actuator/scan/nope", "pause").statusCode()).isEqualTo(404);
        HttpResponse<String> refused = b.send(PATH, "pause");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("management.endpoint.scan.access=unrestricted");
        assertThat(b.engine().task(TASK).state()).isEqualTo(TaskView.State.RUNNING);
        HttpResponse<String> unknown = a.send(PATH, "explode");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("requeue-dead");
        assertThat(a.act("trigger").path("state").asString()).isEqualTo("RUNNING");
    }

    @Test
    @Order(3)
    void pauseStopsProcessingWithinARoundTheBacklogMatchesTheTableAndResumeFinishes() throws Exception {
        insertOrders();
        await().until(() -> done() >= 50);
        assertThat(a.act("pause").path("state").asString()).isEqualTo("PAUSED");
        // b refuses writes over HTTP, yet a pause is the task's on every node: b reads it at its next lease tick
        await().untilAsserted(
                        () -> assertThat(b.get(PATH).path("state").asString()).isEqualTo("PAUSED"));
        AtomicInteger last = new AtomicInteger(-1);
        await().pollInterval(Duration.ofMillis(500)).until(() -> {
            int now = done();
            return last.getAndSet(now) == now;
        });
        int stopped = done();
        // both nodes tick on, each tick waking their dispatchers: a round the pause let start would run now
        LeaseTicks.awaitNext(3, a.engine().task(EndpointNode.TASK), b.engine().task(EndpointNode.TASK));
        assertThat(done()).isEqualTo(stopped);
        assertThat(stopped).isLessThan(ORDERS);
        assertThat(a.get(PATH).path("state").asString()).isEqualTo("PAUSED");
        for (EndpointNode node : List.of(a, b)) {
            // a load balancer keeps a node whose background task is paused
            HttpResponse<String> health = node.send("/actuator/health", null);
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            assertThat(EndpointNode.json(health.body()).path("status").asString())
                    .isEqualTo("UP");
        }

        long pending = table.count("status = 0");
        for (EndpointNode node : List.of(a, b)) {
            await().untilAsserted(() -> assertThat(
                            node.get(PATH).path("backlog").path("total").asLong())
                    .isEqualTo(pending));
        }
        JsonNode backlog = a.get(PATH).path("backlog");
        assertThat(backlog.path("tiers").get(0).path("retries").asString()).isEqualTo("0");
        assertThat(backlog.path("tiers").get(0).path("pending").asLong()).isEqualTo(pending);
        assertThat(backlog.path("dead").asLong()).isZero();

        assertThat(a.act("resume").path("state").asString()).isEqualTo("RUNNING");
        await().untilAsserted(
                        () -> assertThat(b.get(PATH).path("state").asString()).isEqualTo("RUNNING"));
        // one node alone: a pause-node stays on a
        assertThat(a.act("pause-node").path("state").asString()).isEqualTo("PAUSED");
        // b reads the task's pause at each tick: a node's own pause that leaked would show by now
        LeaseTicks.awaitNext(3, b.engine().task(EndpointNode.TASK));
        assertThat(b.get(PATH).path("state").asString()).isEqualTo("RUNNING");
        assertThat(a.act("resume-node").path("state").asString()).isEqualTo("RUNNING");
        await().until(() -> done() == ORDERS);
    }

    @Test
    @Order(4)
    void requeueDeadPutsDeadRowsBackAndTheyAreProcessed() throws Exception {
        await().until(() -> done() == ORDERS);
        table.jdbc().update("UPDATE tb_order SET status = 2, retry_count = 16 WHERE order_id <= 100");
        await().until(() -> a.get(PATH).path("backlog").path("dead").asLong() == 100);
        assertThat(a.act("requeue-dead").path("requeued").asInt()).isEqualTo(100);
        await().until(() -> done() == ORDERS);
        assertThat(table.count("status = 2")).isZero();
        assertThat(table.count("retry_count <> 0")).isZero();
    }

    @Test
    @Order(5)
    void isAnMBeanWhereJmxIsOn() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = server.queryNames(new ObjectName("org.springframework.boot:type=Endpoint,name=Scan,*"), null)
                .iterator()
                .next();
        Object scan = server.invoke(name, "scan", new Object[0], new String[0]);
        assertThat(scan).asInstanceOf(InstanceOfAssertFactories.MAP).containsEntry("node", "a");
    }

    private int done() {
        return table.count("status = 1");
    }

    private void insertOrders() {
        List<Object[]> rows = new ArrayList<>();
        for (long id = 1; id <= ORDERS; id++) {
            rows.add(new Object[] {id, id % 500, Timestamp.from(Instant.now())});
        }
        table.jdbc().batchUpdate("INSERT INTO tb_order (order_id, user_id, updated_at) VALUES (?, ?, ?)", rows);
    }

    /** Each shard's owner, {@code null} when free; fails when a shard is listed twice or its owner left out. */
    private static Map<Integer, String> owners(JsonNode task) {
        Map<Integer, String> owners = new HashMap<>();
        for (JsonNode shard : task.path("ownership")) {
            JsonNode owner = shard.get("owner");
            assertThat(owner)
                    .as("owner of shard %s is written even when null", shard)
                    .isNotNull();
            assertThat(owners.containsKey(shard.path("shard").asInt()))
                    .as("shard %s listed twice", shard.path("shard"))
                    .isFalse();
            owners.put(shard.path("shard").asInt(), owner.isNull() ? null : owner.asString());
        }
        return owners;
    }
}
