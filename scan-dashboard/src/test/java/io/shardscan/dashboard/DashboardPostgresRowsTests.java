package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.ServerTests;
import io.shardscan.testsupport.TestServers;
import java.time.Instant;
import java.time.OffsetDateTime;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;

/**
 * The failed-rows API on PostgreSQL with BIGINT ids above 2^53 - 1, which JavaScript rounds: ids go
 * out as text and come back as text; an id that is not a whole number is a 400; the row view prints
 * timestamps with their offset (TIMESTAMPTZ, the engine's zone-less UTC {@code updated_at}) or as
 * stored (an application's zone-less TIMESTAMP).
 */
@ServerTests
@SpringBootTest(
        classes = DashboardTestApp.class,
        properties = {
            "scan.dashboard.enabled=true",
            "scan.dashboard.write-enabled=true",
            "scan.node-id=pg-node",
            "scan.jdbc.initialize-schema=never"
        })
@AutoConfigureMockMvc
// closed after the class, while PostgreSQL runs: at JVM exit the test servers' hook stops it, and the
// engine, stopping after it, waits on a database that is gone until surefire kills the JVM
@DirtiesContext
class DashboardPostgresRowsTests {

    /** 2^53: the first whole number a JavaScript number cannot tell from its neighbour, 2^53 + 1. */
    static final long TWO_TO_53 = 9_007_199_254_740_992L;

    static final long DONE_ROW = 5;
    static final OrderTable TABLE = new OrderTable(TestServers.postgresDatabase("dashboard_rows"))
            .recreate(8, true)
            .coordinationTables();

    static {
        TABLE.jdbc().execute("ALTER TABLE tb_order ADD COLUMN paid_at TIMESTAMPTZ, ADD COLUMN shipped_at TIMESTAMP");
        for (long id : new long[] {TWO_TO_53, TWO_TO_53 + 1}) {
            TABLE.jdbc()
                    .update(
                            "INSERT INTO tb_order (order_id, user_id, phone, status, retry_count, updated_at,"
                                    + " last_error) VALUES (?, ?, ?, 2, 16, ?, ?)",
                            id,
                            id % 97,
                            "+1555" + id,
                            OrderTable.utc(Instant.parse("2026-01-01T00:00:00Z")),
                            DashboardTestApp.DECLINED);
        }
        // done: the engine leaves it, and its updated_at, alone
        TABLE.jdbc()
                .update(
                        "INSERT INTO tb_order (order_id, user_id, phone, status, updated_at, paid_at, shipped_at)"
                                + " VALUES (?, 1, '+15555', 1, ?, ?, ?)",
                        DONE_ROW,
                        OrderTable.utc(Instant.parse("2026-01-02T03:04:05Z")),
                        OffsetDateTime.parse("2026-03-01T12:00:00+02:00"),
                        java.time.LocalDateTime.parse("2026-03-01T12:00:00"));
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        DashboardTestApp.register(registry, TestServers.postgresEndpoint("dashboard_rows"));
    }

    @Autowired
    MockMvc mvc;

    @Test
    void listsIdsAbove2To53AsTextAndRequeuesTheRowATextIdNamesNotItsNeighbour() throws Exception {
        mvc.perform(get("/scan/api/tasks/orders/failures?dead=true"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.groups[0].error").value(DashboardTestApp.DECLINED))
                .andExpect(jsonPath("$.groups[0].exampleIds").value(contains("9007199254740992", "9007199254740993")));

        requeue("\"9007199254740993\"")
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.requeued").value(1));
        assertThat(TABLE.count("order_id = 9007199254740992 AND status = 2"))
                .as("its neighbour, which a rounded id names, stays dead")
                .isEqualTo(1);
        await().until(() -> TABLE.count("order_id = 9007199254740993 AND status = 1") == 1);

        // a JSON number still names its row: the server reads it whole
        requeue("9007199254740992")
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.requeued").value(1));
        await().until(() -> TABLE.count("order_id = 9007199254740992 AND status = 1") == 1);
    }

    @Test
    void answers400ForAnIdThatIsNotAWholeNumberSayingWhatAnIdLooksLike() throws Exception {
        mvc.perform(get("/scan/api/tasks/orders/rows/abc"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.status").value(400))
                .andExpect(jsonPath("$.task").value("orders"))
                .andExpect(jsonPath("$.message").value(containsString("Row id 'abc' is not an id of task orders")))
                .andExpect(jsonPath("$.message").value(containsString("whole numbers of column order_id")));
        mvc.perform(get("/scan/api/tasks/orders/rows/9223372036854775808"))
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.message").value(containsString("'9223372036854775808'")));
        requeue("\"abc\"")
                .andExpect(status().isBadRequest())
                .andExpect(jsonPath("$.message").value(containsString("Row id 'abc'")));

        mvc.perform(get("/scan/api/tasks/orders/rows/9007199254740993"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.id").value("9007199254740993"))
                // a Matcher, not value(String): that would compare a number after turning it into text
                .andExpect(jsonPath("$.columns.order_id").value(is("9007199254740993")));
        mvc.perform(get("/scan/api/tasks/orders/rows/9007199254740994")).andExpect(status().isNotFound());
    }

    @Test
    void showsTimestampsThatHoldInstantsWithTheirOffsetAndZoneLessOnesAsStored() throws Exception {
        mvc.perform(get("/scan/api/tasks/orders/rows/" + DONE_ROW))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.columns.paid_at").value("2026-03-01T10:00:00Z"))
                .andExpect(jsonPath("$.columns.updated_at").value("2026-01-02T03:04:05Z"))
                .andExpect(jsonPath("$.columns.shipped_at").value("2026-03-01T12:00:00"));
    }

    private ResultActions requeue(String id) throws Exception {
        return mvc.perform(post("/scan/api/tasks/orders/requeue")
                .header(DashboardWriteGuard.HEADER, "1")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"dead\": true, \"ids\": [" + id + "]}"));
    }
}
