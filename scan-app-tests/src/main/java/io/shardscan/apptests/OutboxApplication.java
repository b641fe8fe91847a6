package io.shardscan.apptests;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An outbox service as our users write one: orders are written through Spring Data JPA, each with an
 * event in {@code outbox_event} (a {@code jsonb} payload, keyed by the account's UUID), and Shardscan
 * delivers every event once, in order per account, recording the delivery through JPA in the same
 * transaction as the event's write-back. Flyway owns the schema, Spring Security guards the
 * application, the actuator and the dashboard, and the nodes coordinate through Redis.
 */
@SpringBootApplication
public class OutboxApplication {

    public static void main(String[] args) {
        SpringApplication.run(OutboxApplication.class, args);
    }
}
