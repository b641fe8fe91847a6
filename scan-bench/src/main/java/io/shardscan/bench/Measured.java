package io.shardscan.bench;

/** One system's timed run: how long it took, the rows it finished and what it cost the database. */
record Measured(long nanos, long rows, DbCost cost) {

    double seconds() {
        return nanos / 1e9;
    }

    double rate() {
        return rows / seconds();
    }
}
