package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.shardscan.actuate.ScanEndpoint;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;

/**
 * The dashboard's page and JSON API through MockMvc on an H2 application with writes on: reads,
 * writes with and without the dashboard's header, from a foreign origin, failed-row groups and
 * requeue of one row.
 */
@SpringBootTest(
        classes = DashboardTestApp.class,
        properties = {
            "scan.dashboard.enabled=true",
            "scan.dashboard.write-enabled=true",
            "scan.node-id=api-node",
            "scan.backlog-refresh=300ms",
            "scan.jdbc.initialize-schema=never"
        })
@AutoConfigureMockMvc
class DashboardApiTests {

    static final OrderTable TABLE = new OrderTable(TestServers.h2("dashboard_api"))
            .recreate(8, true)
            .coordinationTables()
            .insert(20, 10, Instant.parse("2026-01-01T00:00:00Z"));

    static {
        TABLE.jdbc().execute("ALTER TABLE tb_order ADD COLUMN paid_at TIMESTAMP WITH TIME ZONE");
        TABLE.jdbc().execute("ALTER TABLE tb_order ADD COLUMN shipped_at TIMESTAMP");
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        DashboardTestApp.register(registry, "dashboard_api");
    }

    @RegisterExtension
    final CapturedLog endpointLog = new CapturedLog(ScanEndpoint.class.getName());

    @RegisterExtension
    final CapturedLog rowsLog = new CapturedLog(FailedRowsController.class.getName());

    @Autowired
    MockMvc mvc;

    @Autowired
    ScanEngine engine;

    @Test
    void servesThePageUnderItsPathAndItsScriptsFromTheJar() throws Exception {
        mvc.perform(get("/scan")).andExpect(status().isFound()).andExpect(header().string("Location", "/scan/"));
        mvc.perform(get("/scan/"))
                .andExpect(status().isOk())
                .andExpect(content().contentTypeCompatibleWith(MediaType.TEXT_HTML))
                .andExpect(content().string(org.hamcrest.Matchers.containsString("assets/app.js")));
        mvc.perform(get("/scan/assets/app.js")).andExpect(status().isOk());
        mvc.perform(get("/scan/assets/api.js"))
                .andExpect(status().isOk())
                .andExpect(content().string(org.hamcrest.Matchers.containsString("X-Scan-Dashboard")));
    }

    @Test
    void overviewShowsTheTaskItsShardMapAndThisNodeWithItsCounters() throws Exception {
        await().untilAsserted(() -> mvc.perform(get("/scan/api/overview"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.node").value("api-node"))
                .andExpect(jsonPath("$.writeEnabled").value(true))
                .andExpect(jsonPath("$.scan.tasks.orders.ownership.length()").value(8))
                .andExpect(jsonPath("$.scan.tasks.orders.ownership[0].owner").value("api-node"))
                .andExpect(jsonPath("$.scan.tasks.orders.members[0].node").value("api-node"))
                .andExpect(jsonPath("$.scan.tasks.orders.members[0].counters.processed")
                        .value(org.hamcrest.Matchers.greaterThan(0)))
                .andExpect(
                        jsonPath("$.scan.tasks.orders.backlog.tiers.length()").value(2))
                .andExpect(jsonPath("$.rates.orders.api-node").isArray()));
        mvc.perform(get("/scan/api/tasks/nope")).andExpect(status().isNotFound());
        // this node's counters say so, next to the task's backlog.dead
        mvc.perform(get("/scan/api/tasks/orders"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.doneHereSinceStart").isNumber())
                .andExpect(jsonPath("$.failedHereSinceStart").isNumber())
                .andExpect(jsonPath("$.deadHereSinceStart").isNumber())
                .andExpect(jsonPath("$.dead").doesNotExist())
                .andExpect(jsonPath("$.processed").doesNotExist());
    }

    @Test
    void refusesWritesWithoutTheDashboardHeaderOrFromAnotherOrigin() throws Exception {
        mvc.perform(action("pause"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.message").value(org.hamcrest.Matchers.containsString("X-Scan-Dashboard")));
        mvc.perform(action("pause").header(DashboardWriteGuard.HEADER, "1").header("Origin", "https://evil.example"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.message").value(org.hamcrest.Matchers.containsString("https://evil.example")));
        mvc.perform(post("/scan/api/tasks/orders/requeue")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"dead\": true, \"all\": true}"))
                .andExpect(status().isForbidden());
        assertThat(engine.task("orders").state()).isEqualTo(TaskView.State.RUNNING);
    }

    @Test
    void pausesAndResumesFromItsOwnPage() throws Exception {
        mvc.perform(action("pause")
                        .header(DashboardWriteGuard.HEADER, "1")
                        .header("Origin", "http://localhost")
                        .principal(() -> "alice"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.state").value("PAUSED"));
        assertThat(endpointLog.messages(Level.INFO))
                .as("the dashboard's pause is logged as the dashboard's, like its requeues")
                .anySatisfy(line ->
                        assertThat(line).startsWith("Scan dashboard: pause of task orders on node api-node by alice"));
        assertThat(engine.task("orders").state()).isEqualTo(TaskView.State.PAUSED);
        mvc.perform(action("resume").header(DashboardWriteGuard.HEADER, "1"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.state").value("RUNNING"));
        mvc.perform(action("explode").header(DashboardWriteGuard.HEADER, "1")).andExpect(status().isBadRequest());
    }

    @Test
    void groupsDeadRowsAndRequeuesOneOfThem() throws Exception {
        await().until(() -> TABLE.count("status = 1") == 20);
        TABLE.jdbc().update("UPDATE tb_order SET status = 2, last_error = 'boom' WHERE order_id IN (3, 4)");
        mvc.perform(get("/scan/api/tasks/orders/failures?dead=true"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.groups[0].error").value("boom"))
                .andExpect(jsonPath("$.groups[0].rows").value(2))
                .andExpect(jsonPath("$.groups[0].exampleIds[0]").value(org.hamcrest.Matchers.is("3")))
                .andExpect(jsonPath("$.more").value(false));
        mvc.perform(post("/scan/api/tasks/orders/requeue")
                        .header(DashboardWriteGuard.HEADER, "1")
                        .principal(() -> "bob")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"dead\": true, \"ids\": [3]}"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.requeued").value(1));
        assertThat(rowsLog.messages(Level.INFO)).anySatisfy(line -> assertThat(line)
                .startsWith("Scan dashboard: requeue of dead rows [3] of task orders on node api-node by bob, 1 rows"
                        + " requeued"));
        await().until(() -> TABLE.count("order_id = 3 AND status = 1") == 1);
        assertThat(TABLE.count("order_id = 4 AND status = 2")).isEqualTo(1);
        mvc.perform(get("/scan/api/tasks/orders/rows/4"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.columns.LAST_ERROR").value("boom"))
                .andExpect(jsonPath("$.columns.ORDER_ID").value(org.hamcrest.Matchers.is("4")));
        mvc.perform(get("/scan/api/tasks/orders/rows/999999")).andExpect(status().isNotFound());
        mvc.perform(get("/scan/api/tasks/orders/failures?size=1000")).andExpect(status().isBadRequest());
    }

    @Test
    void showsTheRowsTimestampsWithTheirOffsetAndZoneLessOnesAsStored() throws Exception {
        // done: the engine leaves it, and its updated_at, alone
        TABLE.jdbc()
                .update(
                        "INSERT INTO tb_order (order_id, user_id, phone, status, updated_at, paid_at, shipped_at)"
                                + " VALUES (1000, 1, '+15551000', 1, ?, ?, ?)",
                        OrderTable.utc(Instant.parse("2026-01-02T03:04:05Z")),
                        OffsetDateTime.parse("2026-03-01T12:00:00+02:00"),
                        LocalDateTime.parse("2026-03-01T12:00:00"));
        mvc.perform(get("/scan/api/tasks/orders/rows/1000"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.columns.PAID_AT").value("2026-03-01T12:00:00+02:00"))
                .andExpect(jsonPath("$.columns.UPDATED_AT").value("2026-01-02T03:04:05Z"))
                .andExpect(jsonPath("$.columns.SHIPPED_AT").value("2026-03-01T12:00:00"));
    }

    private static MockHttpServletRequestBuilder action(String action) {
        return post("/scan/api/tasks/orders/actions")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"action\": \"" + action + "\"}");
    }
}
