package io.shardscan.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard guide's complete Spring Security recipe ("The whole application"), as it stands there, in an
 * application with the dashboard, the actuator's {@code scan} endpoint with writes on, and an endpoint
 * of its own: anonymous reads and writes of the scan endpoint and the dashboard are refused, a viewer
 * cannot pause, an operator can, health stays open, and the application's own {@code POST /orders}
 * still needs a login, as Spring Boot's default chain had it before the application's chains made it
 * back off.
 */
@SpringBootTest(
        classes = ScanSecurityRecipeTests.App.class,
        properties = {
            "scan.dashboard.enabled=true",
            "management.endpoint.scan.access=unrestricted",
            "scan.node-id=recipe-node",
            "scan.jdbc.initialize-schema=never",
            "management.endpoints.web.exposure.include=health,scan"
        })
@AutoConfigureMockMvc
class ScanSecurityRecipeTests {

    static final OrderTable TABLE =
            new OrderTable(TestServers.h2("security_recipe")).recreate(8, true).coordinationTables();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        DashboardTestApp.register(registry, "security_recipe");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({DashboardTestApp.Orders.class, DashboardSecurityTests.Users.class, ScanSecurity.class, OrdersApi.class})
    static class App {}

    /** The application's own endpoint, which must stay behind a login. */
    @RestController
    static class OrdersApi {
        @GetMapping("/orders")
        String list() {
            return "orders";
        }

        @PostMapping("/orders")
        String create() {
            return "created";
        }
    }

    // docs/guides/dashboard.md, "The whole application", as it stands there (runsTheGuidesRecipeAsItStands compares
    // them)
    @Configuration(proxyBeanMethods = false)
    static class ScanSecurity {

        @Bean
        @Order(1)
        SecurityFilterChain scanDashboard(HttpSecurity http) throws Exception {
            return http.securityMatcher("/scan", "/scan/**")
                    .authorizeHttpRequests(requests -> requests.anyRequest().hasRole("OPS"))
                    .httpBasic(Customizer.withDefaults())
                    // the dashboard refuses cross-site writes itself (X-Scan-Dashboard + same origin)
                    .csrf(csrf -> csrf.ignoringRequestMatchers("/scan/api/**"))
                    .build();
        }

        @Bean
        @Order(2)
        SecurityFilterChain actuator(HttpSecurity http) throws Exception {
            return http.securityMatcher(EndpointRequest.toAnyEndpoint())
                    .authorizeHttpRequests(
                            requests -> requests.requestMatchers(EndpointRequest.to(HealthEndpoint.class))
                                    .permitAll()
                                    .anyRequest()
                                    .hasRole("OPS"))
                    .httpBasic(Customizer.withDefaults())
                    // writes take JSON, which a page of another site cannot send without a CORS preflight
                    .csrf(csrf -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()))
                    .build();
        }

        @Bean
        @Order(3)
        SecurityFilterChain application(HttpSecurity http) throws Exception {
            // what Spring Boot's default chain did before these beans made it back off
            return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                    .formLogin(Customizer.withDefaults())
                    .httpBasic(Customizer.withDefaults())
                    .build();
        }
    }

    @Autowired
    MockMvc mvc;

    @Autowired
    ScanEngine engine;

    @AfterEach
    void resume() {
        engine.task("orders").resumeEverywhere();
        engine.task("orders").resume();
    }

    @Test
    void anonymousWritesAndReadsOfTheScanEndpointAreRefusedAndAnOperatorPauses() throws Exception {
        mvc.perform(pause()).andExpect(status().isUnauthorized());
        mvc.perform(pause().with(DashboardSecurityTests.basic("victor"))).andExpect(status().isForbidden());
        assertThat(engine.task("orders").state()).isEqualTo(TaskView.State.RUNNING);
        mvc.perform(get("/actuator/scan")).andExpect(status().isUnauthorized());

        mvc.perform(pause().with(DashboardSecurityTests.basic("alice"))).andExpect(status().is2xxSuccessful());
        assertThat(engine.task("orders").isPausedEverywhere()).isTrue();
        mvc.perform(get("/actuator/scan").with(DashboardSecurityTests.basic("alice")))
                .andExpect(status().isOk());
    }

    @Test
    void healthStaysOpenAndTheDashboardNeedsTheRole() throws Exception {
        mvc.perform(get("/actuator/health")).andExpect(status().isOk());
        mvc.perform(get("/scan/api/overview")).andExpect(status().isUnauthorized());
        mvc.perform(get("/scan/api/overview").with(DashboardSecurityTests.basic("victor")))
                .andExpect(status().isForbidden());
        mvc.perform(get("/scan/api/overview").with(DashboardSecurityTests.basic("alice")))
                .andExpect(status().isOk());
    }

    @Test
    void theApplicationsOwnEndpointsStillNeedALogin() throws Exception {
        mvc.perform(get("/orders")).andExpect(status().isUnauthorized());
        mvc.perform(get("/orders").with(DashboardSecurityTests.basic("victor"))).andExpect(status().isOk());
        // refused before the login is asked for: Spring's CSRF check, on as in Boot's default chain
        mvc.perform(post("/orders")).andExpect(status().isForbidden());
    }

    @Test
    void runsTheGuidesRecipeAsItStands() throws Exception {
        List<String> documented = GuideCode.javaBlockAfter("**The whole application.**");
        assertThat(documented).first().isEqualTo("@Configuration(proxyBeanMethods = false)");
        assertThat(GuideCode.sourceOf(ScanSecurityRecipeTests.class))
                .as("the dashboard guide's recipe, line by line")
                .containsSequence(documented);
    }

    private static org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder pause() {
        return post("/actuator/scan/orders")
                .contentType(MediaType.APPLICATION_JSON)
                .content("{\"action\": \"pause\"}");
    }
}
