package io.shardscan.apptests;

import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The dashboard guide's three chains ("The whole application", docs/guides/dashboard.md), as a user copies them, with two users of
 * the application's own: an operator (role OPS) and a clerk.
 */
@Configuration(proxyBeanMethods = false)
class ScanSecurity {

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
                .authorizeHttpRequests(requests -> requests.requestMatchers(EndpointRequest.to(HealthEndpoint.class))
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

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("operator").password("{noop}ops").roles("OPS").build(),
                User.withUsername("clerk").password("{noop}clerk").roles("USER").build());
    }
}
