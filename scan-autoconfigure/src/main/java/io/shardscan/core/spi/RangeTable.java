package io.shardscan.core.spi;

import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.Row;
import java.util.List;

/**
 * The table a range task reads, by id only: pages of a range in id order and the table's id bounds.
 * Never writes it. Thread-safe.
 */
public interface RangeTable {

    /**
     * Reads the rows with {@code after < id <= last} in id order, at most {@code limit}, through the
     * index on the id (one index range scan).
     *
     * @return the rows, possibly empty; each with the id as its shard key and retry count 0
     */
    List<Row> page(RangeTask task, long after, long last, int limit);

    /**
     * Reads the rows with the given ids.
     *
     * @return the rows that exist, in id order
     */
    List<Row> rows(RangeTask task, List<Long> ids);

    /**
     * The table's lowest id now.
     *
     * @return the id, or {@link Long#MAX_VALUE} when the table is empty
     */
    long minId(RangeTask task);

    /**
     * The table's highest id now.
     *
     * @return the id, or {@link Long#MIN_VALUE} when the table is empty
     */
    long maxId(RangeTask task);

    /**
     * Inspects the table: whether it exists, its columns, whether it has the id column, of a whole-number
     * type, and an index whose first column is the id (every page is a range of it).
     *
     * @return what was found: {@link SchemaReport#missingColumns()} holds the id column when the table
     *     lacks it, {@link SchemaReport#problems()} a type the id cannot have, and
     *     {@link SchemaReport#indexStatements()} the statement that creates a missing index
     */
    SchemaReport inspect(RangeTask task);
}
