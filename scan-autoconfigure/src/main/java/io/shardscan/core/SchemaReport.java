package io.shardscan.core;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a store found about a task's table. Immutable.
 *
 * @param tableExists whether the table exists
 * @param missingColumns configured columns the table lacks (the properties' values), empty when all exist
 * @param indexPresent whether the index that keeps the fetch a range scan exists
 * @param indexStatements the statements that create that index (and any column it needs) when missing
 * @param lastErrorLength the length of the last-error column, or {@code 0} when unknown
 * @param problem a further reason the table cannot be used, or {@code null}
 */
public record SchemaReport(
        boolean tableExists,
        List<String> missingColumns,
        boolean indexPresent,
        List<String> indexStatements,
        int lastErrorLength,
        @Nullable String problem) {

    public SchemaReport {
        missingColumns = List.copyOf(missingColumns);
        indexStatements = List.copyOf(indexStatements);
    }
}
