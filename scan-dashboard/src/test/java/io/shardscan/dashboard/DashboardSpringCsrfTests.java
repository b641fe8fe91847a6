package io.shardscan.dashboard;

import static io.shardscan.dashboard.DashboardSecurityTests.action;
import static io.shardscan.dashboard.DashboardSecurityTests.basic;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.shardscan.core.ScanEngine;
import io.shardscan.core.TaskView;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import jakarta.servlet.http.Cookie;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;

/**
 * The dashboard guide's other way: its {@code SecurityFilterChain} with Spring Security's own CSRF protection
 * for the dashboard's API ({@code csrf.spa()}, the token in a cookie that scripts can read). Loading the
 * page sets the {@code XSRF-TOKEN} cookie, which the page's {@code api.js} copies into the
 * {@code X-XSRF-TOKEN} header of its writes (that copy runs in a browser, not here); a write passes with
 * the cookie and the header and is refused without the header, and the dashboard's own check still
 * wants {@code X-Scan-Dashboard}.
 */
@SpringBootTest(
        classes = DashboardSpringCsrfTests.SpringCsrfApp.class,
        properties = {
            "scan.dashboard.enabled=true",
            "scan.dashboard.write-enabled=true",
            "scan.node-id=csrf-node",
            "scan.jdbc.initialize-schema=never"
        })
@AutoConfigureMockMvc
class DashboardSpringCsrfTests {

    static final String COOKIE = "XSRF-TOKEN";
    static final String TOKEN_HEADER = "X-XSRF-TOKEN";

    static final OrderTable TABLE =
            new OrderTable(TestServers.h2("dashboard_csrf")).recreate(8, true).coordinationTables();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        DashboardTestApp.register(registry, "dashboard_csrf");
    }

    /** The dashboard guide's chain with its {@code csrf} line replaced as the guide says. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({DashboardTestApp.Orders.class, DashboardSecurityTests.Users.class})
    static class SpringCsrfApp {

        @Bean
        SecurityFilterChain scanDashboard(HttpSecurity http) throws Exception {
            return http.securityMatcher("/scan", "/scan/**")
                    .authorizeHttpRequests(requests -> requests.anyRequest().hasRole("OPS"))
                    .httpBasic(Customizer.withDefaults())
                    .csrf(csrf -> csrf.spa())
                    .build();
        }
    }

    @Autowired
    MockMvc mvc;

    @Autowired
    ScanEngine engine;

    @Test
    void loadingThePageSetsTheTokenCookieThatItsScriptCopiesIntoTheHeader() throws Exception {
        Cookie token = pageCookie();
        assertThat(token.getValue()).isNotBlank();
        assertThat(token.isHttpOnly())
                .as("the page's script must be able to read it")
                .isFalse();
        mvc.perform(get("/scan/assets/api.js").with(basic("alice")))
                .andExpect(status().isOk())
                .andExpect(content().string(Matchers.containsString("'" + COOKIE + "='")))
                .andExpect(content().string(Matchers.containsString("headers['" + TOKEN_HEADER + "']")));
    }

    @Test
    void aWritePassesWithTheCookieAndItsHeaderOnlyAndStillNeedsTheDashboardsHeader() throws Exception {
        Cookie token = pageCookie();
        // what a page of another site can make a browser send: the cookie, not the header
        mvc.perform(action("pause").with(basic("alice")).cookie(token).header(DashboardWriteGuard.HEADER, "1"))
                .andExpect(status().isForbidden());
        mvc.perform(action("pause")
                        .with(basic("alice"))
                        .cookie(token)
                        .header(TOKEN_HEADER, "not-" + token.getValue())
                        .header(DashboardWriteGuard.HEADER, "1"))
                .andExpect(status().isForbidden());
        // Spring's token passes, the dashboard's own check refuses
        mvc.perform(action("pause").with(basic("alice")).cookie(token).header(TOKEN_HEADER, token.getValue()))
                .andExpect(status().isForbidden())
                .andExpect(jsonPath("$.message").value(Matchers.containsString(DashboardWriteGuard.HEADER)));
        assertThat(engine.task("orders").state()).isEqualTo(TaskView.State.RUNNING);

        mvc.perform(action("pause")
                        .with(basic("alice"))
                        .cookie(token)
                        .header(TOKEN_HEADER, token.getValue())
                        .header(DashboardWriteGuard.HEADER, "1"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.state").value("PAUSED"));
        mvc.perform(action("resume")
                        .with(basic("alice"))
                        .cookie(token)
                        .header(TOKEN_HEADER, token.getValue())
                        .header(DashboardWriteGuard.HEADER, "1"))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.state").value("RUNNING"));
    }

    /** The {@code XSRF-TOKEN} cookie set when an OPS user loads the page, as a browser would keep it. */
    private Cookie pageCookie() throws Exception {
        Cookie token = mvc.perform(get("/scan/").with(basic("alice")))
                .andExpect(status().isOk())
                .andReturn()
                .getResponse()
                .getCookie(COOKIE);
        assertThat(token).as("the page's response sets " + COOKIE).isNotNull();
        return token;
    }
}
