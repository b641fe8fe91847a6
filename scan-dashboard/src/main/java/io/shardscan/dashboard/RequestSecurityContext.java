package io.shardscan.dashboard;

import io.shardscan.actuate.ScanEndpoint;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;

/**
 * The caller of a dashboard request as the scan endpoint sees callers: its principal and roles, and
 * the door, so that the endpoint logs its writes as {@code Scan dashboard: ...} like the dashboard's own.
 */
record RequestSecurityContext(HttpServletRequest request) implements SecurityContext, ScanEndpoint.Door {

    @Override
    public String door() {
        return "dashboard";
    }

    @Override
    public @Nullable Principal getPrincipal() {
        return request.getUserPrincipal();
    }

    @Override
    public boolean isUserInRole(String role) {
        return request.isUserInRole(role);
    }
}
