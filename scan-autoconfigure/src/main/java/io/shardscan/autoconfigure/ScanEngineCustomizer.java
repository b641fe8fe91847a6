package io.shardscan.autoconfigure;

/**
 * Adjusts the scan engine's settings before it is built. Beans of this type are applied in
 * {@link org.springframework.core.Ordered} order, after {@code scan.*} properties.
 */
@FunctionalInterface
public interface ScanEngineCustomizer {

    /** Changes what it needs on {@code builder}, which holds the values of the {@code scan.*} properties. */
    void customize(ScanEngineBuilder builder);
}
