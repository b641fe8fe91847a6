package io.shardscan.apptests;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.util.UUID;

/** One delivered outbox event: saved by the handler in the transaction that marks the event done. */
@Entity
public class Delivery {

    @Id
    private Long eventId;

    private UUID accountId;

    private String node;

    private String payload;

    protected Delivery() {}

    Delivery(long eventId, UUID accountId, String node, String payload) {
        this.eventId = eventId;
        this.accountId = accountId;
        this.node = node;
        this.payload = payload;
    }

    public Long getEventId() {
        return eventId;
    }

    public UUID getAccountId() {
        return accountId;
    }

    public String getNode() {
        return node;
    }

    public String getPayload() {
        return payload;
    }
}
