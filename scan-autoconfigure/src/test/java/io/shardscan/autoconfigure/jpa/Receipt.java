package io.shardscan.autoconfigure.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** What a transactional handler saves through Spring Data JPA for each order it handles. */
@Entity
public class Receipt {

    @Id
    private Long orderId;

    private String node;

    protected Receipt() {}

    Receipt(long orderId, String node) {
        this.orderId = orderId;
        this.node = node;
    }

    public Long getOrderId() {
        return orderId;
    }

    public String getNode() {
        return node;
    }
}
