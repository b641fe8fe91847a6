package io.shardscan.core;

import java.util.Map;
import java.util.Objects;

/**
 * One fetched row. Immutable.
 *
 * @param id the row's id (the keyset column)
 * @param shardKey the value of the shard-key column; rows of one key share a shard and a lane
 * @param retries how often the row failed before
 * @param columns every column of the row by its name as the database reports it, in lower case
 */
public record Row(long id, long shardKey, int retries, Map<String, Object> columns) {

    public Row {
        columns = Map.copyOf(Objects.requireNonNull(columns, "columns"));
    }
}
