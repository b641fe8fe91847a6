package io.shardscan.core;

import java.time.Instant;
import java.util.List;

/**
 * Where a task's rows live. The engine decides what to fetch and what to write; a store only runs
 * those reads and writes against its backend. Implementations are thread-safe: rounds of different
 * shards call them at the same time.
 */
public interface TaskStore {

    /**
     * Inspects the task's table: which configured columns are missing and whether the index that
     * keeps {@link #fetch} a range scan over pending rows exists.
     *
     * @return the report; never {@code null}
     */
    SchemaReport inspect(TaskDefinition task);

    /**
     * Reads the next page of due rows of one shard and tier: pending, retry count within
     * {@code request.minRetries()}–{@code request.maxRetries()}, last update at or before
     * {@code request.dueBefore()}, id greater than {@code request.afterId()}, in id order,
     * at most {@code request.limit()} rows.
     *
     * @return the rows, possibly empty; never {@code null}
     */
    List<Row> fetch(TaskDefinition task, FetchRequest request);

    /**
     * Records {@code epoch} as the shard's fence unless a greater one is there.
     *
     * @return {@code true} when the fence now holds {@code epoch}, {@code false} when a newer owner fenced it
     */
    boolean fence(TaskDefinition task, int shard, long epoch);

    /**
     * Applies a round's outcomes in one transaction, only while the shard's fence still holds
     * {@code batch.epoch()}; rows no longer pending are left alone.
     *
     * @return {@code true} when written, {@code false} when a newer epoch fenced the shard and nothing changed
     */
    boolean writeBack(TaskDefinition task, WriteBack batch);

    /**
     * Counts the task's pending rows by retry count, with the oldest last update of each group,
     * and its dead rows, with queries that read the pending-row index rather than the whole table.
     *
     * @return the counts; empty groups when nothing is pending
     */
    BacklogCounts countBacklog(TaskDefinition task);

    /**
     * Puts every dead row back to pending with retry count 0.
     *
     * @return how many rows were requeued
     */
    int requeueDead(TaskDefinition task, Instant at);

    /**
     * Runs {@code work} in one transaction of this store, which the handler's own database writes
     * on the same data source join: it commits when {@code work} returns {@code true} and rolls
     * back when it returns {@code false} or throws.
     *
     * @return whether it committed
     * @throws Exception what {@code work} threw, after the rollback
     */
    boolean inTransaction(TransactionalWork work) throws Exception;

    /** Work that decides at its end whether its transaction commits. */
    @FunctionalInterface
    interface TransactionalWork {

        /** Does the work; {@code true} to commit, {@code false} to roll back. */
        boolean run() throws Exception;
    }
}
