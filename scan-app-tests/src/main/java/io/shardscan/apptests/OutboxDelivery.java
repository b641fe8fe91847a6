package io.shardscan.apptests;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.task.ScanContext;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * Delivers each outbox event: records it through JPA in the transaction of the event's write-back
 * ({@code transactional = true}), so the delivery and the event's {@code done} commit together, roll
 * back together, and are refused together when another node took the event's shard over.
 */
@Component
public class OutboxDelivery {

    /** An outbox event as the task reads it: the {@code jsonb} payload as its text. */
    public record OutboxEvent(long eventId, UUID accountId, String payload) {}

    private final Deliveries deliveries;

    OutboxDelivery(Deliveries deliveries) {
        this.deliveries = deliveries;
    }

    @ScanTask(value = "outbox", transactional = true)
    public void deliver(OutboxEvent event, ScanContext context) {
        deliveries.save(new Delivery(event.eventId(), event.accountId(), context.node(), event.payload()));
        if (event.payload().contains("\"reject\": true")) {
            // after the save: the rollback must take the delivery back with the event's write-back
            throw new IllegalStateException("the receiver rejected event " + event.eventId());
        }
    }
}
