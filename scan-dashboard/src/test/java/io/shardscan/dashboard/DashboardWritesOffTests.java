package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;

/**
 * With neither {@code scan.dashboard.write-enabled} nor {@code management.endpoint.scan.access=unrestricted}, the
 * dashboard on another path reads but refuses every write, naming both switches, even with its header.
 */
@SpringBootTest(
        classes = DashboardTestApp.class,
        properties = {
            "scan.dashboard.enabled=true",
            "scan.dashboard.path=/ops/scan",
            "scan.jdbc.initialize-schema=never"
        })
@AutoConfigureMockMvc
class DashboardWritesOffTests {

    static final OrderTable TABLE =
            new OrderTable(TestServers.h2("dashboard_ro")).recreate(8, true).coordinationTables();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        DashboardTestApp.register(registry, "dashboard_ro");
    }

    @Autowired
    MockMvc mvc;

    @Autowired
    ScanEngine engine;

    @Test
    void readsOnItsPathAndRefusesEveryWriteNamingBothSwitches() throws Exception {
        mvc.perform(org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get("/ops/scan/api/overview"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.writeEnabled").value(false));
        mvc.perform(post("/ops/scan/api/tasks/orders/actions")
                        .header(DashboardWriteGuard.HEADER, "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"action\": \"pause\"}"))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.message").value(Matchers.containsString("scan.dashboard.write-enabled")))
                .andExpect(jsonPath("$.message")
                        .value(Matchers.containsString("management.endpoint.scan.access=unrestricted")));
        mvc.perform(post("/ops/scan/api/tasks/orders/requeue")
                        .header(DashboardWriteGuard.HEADER, "1")
                        .contentType(MediaType.APPLICATION_JSON)
                        .content("{\"dead\": true, \"all\": true}"))
                .andExpect(status().isForbidden());
        assertThat(engine.task("orders").state()).isEqualTo(TaskView.State.RUNNING);
    }
}
