package io.shardscan.autoconfigure.jpa;

import org.springframework.data.jpa.repository.JpaRepository;

/** The handler's Spring Data JPA repository. */
public interface Receipts extends JpaRepository<Receipt, Long> {}
