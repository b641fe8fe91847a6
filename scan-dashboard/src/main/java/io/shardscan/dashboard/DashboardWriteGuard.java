package io.shardscan.dashboard;

import io.shardscan.actuate.ScanEndpointAccess;
import io.shardscan.actuate.ScanEndpointWebExtension.Refusal;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether a dashboard write may run: writes must be switched on, and the request must come
 * from the dashboard's own page. Cross-site request forgery is refused without server-side state (so
 * it works on every node behind a load balancer, without sticky sessions): the page sends the custom
 * header {@value #HEADER}, which a page of another origin cannot send without a CORS preflight that the
 * dashboard never grants, and a browser's {@code Origin} header, when present, must be this server's
 * origin. Stateless and thread-safe.
 */
final class DashboardWriteGuard {

    /** The header every write must carry; the dashboard page sends it. */
    static final String HEADER = "X-Scan-Dashboard";

    static final int FORBIDDEN = 403;

    private final boolean writeEnabled;

    /** @param writeEnabled {@code scan.dashboard.write-enabled}, or the scan endpoint's writes are on */
    DashboardWriteGuard(boolean writeEnabled) {
        this.writeEnabled = writeEnabled;
    }

    boolean writeEnabled() {
        return writeEnabled;
    }

    /**
     * Why {@code request} may not write to {@code task}.
     *
     * @return {@code null} when it may
     */
    @Nullable
    Refusal refusal(String task, HttpServletRequest request) {
        if (!writeEnabled) {
            return new Refusal(
                    FORBIDDEN,
                    task,
                    "Writes from the dashboard are off: set scan.dashboard.write-enabled=true (or "
                            + ScanEndpointAccess.PROPERTY + "=unrestricted, which allows the actuator's writes too)"
                            + " to allow them");
        }
        if (request.getHeader(HEADER) == null) {
            return new Refusal(
                    FORBIDDEN,
                    task,
                    "A dashboard write needs the header " + HEADER + ", which the dashboard page sends and a page of"
                            + " another site cannot: refused as a possible cross-site request");
        }
        String origin = request.getHeader("Origin");
        if (origin != null && !origin.equals("null") && !sameOrigin(origin, request)) {
            return new Refusal(
                    FORBIDDEN,
                    task,
                    "A dashboard write must come from this server's own page, not from " + origin
                            + " (this server is " + ownOrigin(request) + "); behind a proxy that changes the host,"
                            + " set server.forward-headers-strategy so the server knows its public address");
        }
        return null;
    }

    private static boolean sameOrigin(String origin, HttpServletRequest request) {
        try {
            URI uri = URI.create(origin);
            int port = uri.getPort() != -1 ? uri.getPort() : defaultPort(uri.getScheme());
            return request.getScheme().equalsIgnoreCase(uri.getScheme())
                    && request.getServerName().equalsIgnoreCase(uri.getHost())
                    && request.getServerPort() == port;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static int defaultPort(@Nullable String scheme) {
        return "https".equalsIgnoreCase(scheme) ? 443 : 80;
    }

    private static String ownOrigin(HttpServletRequest request) {
        return request.getScheme() + "://" + request.getServerName() + ":" + request.getServerPort();
    }
}
