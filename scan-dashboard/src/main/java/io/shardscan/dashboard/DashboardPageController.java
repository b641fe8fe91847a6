package io.shardscan.dashboard;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;

/**
 * The dashboard page at {@code scan.dashboard.path}{@code /}; the path without its slash redirects
 * there so that the page's relative links (its scripts, {@code api/...}) resolve under the path.
 */
@Controller
final class DashboardPageController {

    static final String STATIC = "io/shardscan/dashboard/static/";

    @GetMapping("${scan.dashboard.path:/scan}")
    ResponseEntity<Void> redirect(HttpServletRequest request) {
        return ResponseEntity.status(302)
                .header(HttpHeaders.LOCATION, request.getRequestURI() + "/")
                .build();
    }

    @GetMapping("${scan.dashboard.path:/scan}/")
    ResponseEntity<Resource> page() {
        return ResponseEntity.ok()
                .contentType(MediaType.TEXT_HTML)
                .header(HttpHeaders.CACHE_CONTROL, "no-cache")
                .body(new ClassPathResource(STATIC + "index.html"));
    }
}
