package io.shardscan.bench;

import java.io.PrintStream;

/** One benchmark: prints a readable table, then returns its single {@code RESULT} line. */
public interface Scenario {

    /** The name on the command line and in the {@code RESULT} line. */
    String name();

    /**
     * Runs the benchmark.
     *
     * @param bench the servers and options
     * @param out where the table and progress go
     * @return the machine-readable result
     */
    ResultLine run(Bench bench, PrintStream out) throws Exception;
}
