package io.shardscan.testsupport;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The suite's one time budget: how long a test waits for something the engine is bound to do,
 * scaled by {@code SCAN_TEST_TIME_FACTOR} (default 1; a slow or loaded CI machine may raise it, and
 * no test changes). A test waits for events with Awaitility's default timeout, which this extension
 * sets before every test class (it is registered for the whole suite through
 * {@code META-INF/services}), and scales any longer wait with {@link #scaled}. Nothing here makes a
 * test pass sooner or later: a wait ends when its condition holds; the budget only says when to give
 * up and report.
 */
public final class TestTime implements BeforeAllCallback {

    /** The factor read from {@code SCAN_TEST_TIME_FACTOR}; at least 1. */
    public static final double FACTOR = factor(System.getenv("SCAN_TEST_TIME_FACTOR"));

    /** How long a test waits for an event by default: 30 s times the factor. */
    public static final Duration BUDGET = scaled(Duration.ofSeconds(30));

    /** {@code wait} times the factor: for the few waits that need more than the default budget. */
    public static Duration scaled(Duration wait) {
        return Duration.ofMillis(Math.round(wait.toMillis() * FACTOR));
    }

    static double factor(String value) {
        if (value == null || value.isBlank()) {
            return 1;
        }
        try {
            double factor = Double.parseDouble(value.trim());
            if (factor >= 1) {
                return factor;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("SCAN_TEST_TIME_FACTOR must be a number of at least 1 (e.g. 2 on a slow"
                + " machine), not '" + value + "'");
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // a test may have changed Awaitility's defaults (Awaitility.reset()): each class starts from the budget
        Awaitility.setDefaultTimeout(BUDGET);
    }
}
