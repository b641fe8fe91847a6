package io.shardscan.apptests;

import org.springframework.data.jpa.repository.JpaRepository;

/** The deliveries, through Spring Data JPA. */
public interface Deliveries extends JpaRepository<Delivery, Long> {}
