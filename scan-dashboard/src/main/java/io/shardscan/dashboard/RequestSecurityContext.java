package io.shardscan.dashboard;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;

/** The caller of a dashboard request as the scan endpoint sees callers: its principal and roles. */
record RequestSecurityContext(HttpServletRequest request) implements SecurityContext {

    @Override
    public @Nullable Principal getPrincipal() {
        return request.getUserPrincipal();
    }

    @Override
    public boolean isUserInRole(String role) {
        return request.isUserInRole(role);
    }
}
