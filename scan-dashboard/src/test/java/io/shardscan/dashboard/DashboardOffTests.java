package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;

/** Without {@code scan.dashboard.enabled=true} nothing is served; a bad path is refused with the fix. */
@SpringBootTest(classes = DashboardTestApp.class, properties = "scan.jdbc.initialize-schema=never")
@AutoConfigureMockMvc
class DashboardOffTests {

    static final OrderTable TABLE =
            new OrderTable(TestServers.h2("dashboard_off")).recreate(8, true).coordinationTables();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        DashboardTestApp.register(registry, "dashboard_off");
    }

    @Autowired
    MockMvc mvc;

    @Autowired
    ApplicationContext context;

    @Test
    void isOffUnlessEnabled() throws Exception {
        assertThat(context.getBeansOfType(DashboardApiController.class)).isEmpty();
        mvc.perform(get("/scan/api/overview")).andExpect(status().isNotFound());
        mvc.perform(get("/scan/")).andExpect(status().isNotFound());
    }

    @Test
    void refusesAPathThatIsNotAPlainPath() {
        DashboardAutoConfiguration.checkPath("/ops/scan");
        for (String bad : new String[] {"scan", "/scan/", "/", "/a b", "/scan/**"}) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> DashboardAutoConfiguration.checkPath(bad))
                    .withMessageContaining("scan.dashboard.path")
                    .withMessageContaining("e.g. /scan");
        }
    }
}
