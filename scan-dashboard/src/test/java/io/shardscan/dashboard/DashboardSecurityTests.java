package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.shardscan.actuate.ScanEndpoint;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.logging.Level;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.RequestPostProcessor;

/**
 * The dashboard behind Spring Security with the dashboard guide's {@code SecurityFilterChain} as it stands there
 * (HTTP Basic, role {@code OPS}, Spring's CSRF check off for the dashboard's API): reads and writes need
 * the role, the dashboard's own cross-site check still refuses writes without its header, a write is
 * logged with the signed-in user, and {@code /actuator/**} is left to the application's own security.
 * The chain here is compared with the guide's, line by line.
 */
@SpringBootTest(
        classes = DashboardSecurityTests.SecuredApp.class,
        properties = {
            "scan.dashboard.enabled=true",
            "scan.dashboard.write-enabled=true",
            "scan.node-id=secured-node",
            "scan.jdbc.initialize-schema=never",
            "management.endpoints.web.exposure.include=health,scan"
        })
@AutoConfigureMockMvc
class DashboardSecurityTests {

    static final String PASSWORD = "s3cret";

    static final OrderTable TABLE =
            new OrderTable(TestServers.h2("dashboard_sec")).recreate(8, true).coordinationTables();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        DashboardTestApp.register(registry, "dashboard_sec");
    }

    /** The dashboard's test application with the guide's chain and the users of {@link Users}. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({DashboardTestApp.Orders.class, Users.class})
    static class SecuredApp {

        // docs/guides/dashboard.md, "Securing it", as it stands there (runsTheGuidesChainAsItStands compares them)
        @Bean
        SecurityFilterChain scanDashboard(HttpSecurity http) throws Exception {
            return http.securityMatcher("/scan", "/scan/**")
                    .authorizeHttpRequests(requests -> requests.anyRequest().hasRole("OPS"))
                    .httpBasic(Customizer.withDefaults())
                    // the dashboard refuses cross-site writes itself (X-Scan-Dashboard + same origin)
                    .csrf(csrf -> csrf.ignoringRequestMatchers("/scan/api/**"))
                    .build();
        }
    }

    /** {@code alice} has role {@code OPS}, {@code victor} only {@code VIEWER}; both sign in with {@link #PASSWORD}. */
    static class Users {

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("alice")
                            .password("{noop}" + PASSWORD)
                            .roles("OPS")
                            .build(),
                    User.withUsername("victor")
                            .password("{noop}" + PASSWORD)
                            .roles("VIEWER")
                            .build());
        }
    }

    /** Signs the request in as {@code user} with HTTP Basic, as a browser does after the login prompt. */
    static RequestPostProcessor basic(String user) {
        return request -> {
            request.addHeader(
                    HttpHeaders.AUTHORIZATION,
                    "Basic " + HttpHeaders.encodeBasicAuth(user, PASSWORD, StandardCharsets.UTF_8));
            return request;
        };
    }

    static MockHttpServletRequestBuilder action(String action) {
        return post("/scan/api/tasks/orders/actions")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"action\": \"" + action + "\"}");
    }

    @RegisterExtension
    final CapturedLog endpointLog = new CapturedLog(ScanEndpoint.class.getName());

    @Autowired
    MockMvc mvc;

    @Autowired
    ScanEngine engine;

    @Test
    void thePageAndItsApiNeedTheOpsRole() throws Exception {
        for (String path : new String[] {"/scan/", "/scan/api/overview", "/scan/assets/api.js"}) {
            mvc.perform(get(path)).andExpect(status().isUnauthorized());
            mvc.perform(get(path).with(basic("victor"))).andExpect(status().isForbidden());
            mvc.perform(get(path).with(basic("alice"))).andExpect(status().isOk());
        }
        mvc.perform(get("/scan")).andExpect(status().isUnauthorized());
        mvc.perform(get("/scan").with(basic("alice"))).andExpect(status().isFound());
        mvc.perform(get("/scan/api/overview").with(basic("alice")))
                .andExpect(jsonPath("$.node").value("secured-node"))
                .andExpect(jsonPath("$.writeEnabled").value(true));
    }

    @Test
    void anOpsUsersWriteStillNeedsTheDashboardsHeaderAndIsLoggedWithTheUser() throws Exception {
        mvc.perform(action("pause").header(DashboardWriteGuard.HEADER, "1")).andExpect(status().isUnauthorized());
        mvc.perform(action("pause").header(DashboardWriteGuard.HEADER, "1").with(basic("victor")))
                .andExpect(status().isForbidden());
        // Spring's CSRF check is off for /scan/api/**: the dashboard's own check refuses this one
        mvc.perform(action("pause").with(basic("alice")))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.message").value(Matchers.containsString(DashboardWriteGuard.HEADER)));
        assertThat(engine.task("orders").state()).isEqualTo(TaskView.State.RUNNING);

        mvc.perform(action("pause").header(DashboardWriteGuard.HEADER, "1").with(basic("alice")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.state").value("PAUSED"));
        assertThat(endpointLog.messages(Level.INFO)).anySatisfy(line -> assertThat(line)
                .startsWith("Scan dashboard: pause of task orders on node secured-node by alice"));
        mvc.perform(action("resume").header(DashboardWriteGuard.HEADER, "1").with(basic("alice")))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.state").value("RUNNING"));
    }

    @Test
    void leavesTheActuatorToTheApplicationsOwnSecurity() throws Exception {
        // Spring Boot's default chain backs off for the dashboard's, and there is no other one here:
        // a 401 would come from the dashboard's chain
        mvc.perform(get("/actuator/scan")).andExpect(status().isOk());
        mvc.perform(get("/actuator/health")).andExpect(status().isOk());
    }

    @Test
    void runsTheGuidesChainAsItStands() throws Exception {
        List<String> documented = GuideCode.javaBlockAfter("**Securing it.**");
        assertThat(documented).first().isEqualTo("@Bean");
        assertThat(GuideCode.sourceOf(DashboardSecurityTests.class))
                .as("the dashboard guide's SecurityFilterChain, line by line")
                .containsSequence(documented);
    }
}
