package io.shardscan.apptests;

import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** An endpoint of the application's own, which must stay behind its login. */
@RestController
class OrdersController {

    @GetMapping("/orders")
    Map<String, String> list() {
        return Map.of("orders", "none");
    }

    @PostMapping("/orders")
    ResponseEntity<Map<String, String>> create() {
        return ResponseEntity.status(201).body(Map.of("order", "accepted"));
    }
}
