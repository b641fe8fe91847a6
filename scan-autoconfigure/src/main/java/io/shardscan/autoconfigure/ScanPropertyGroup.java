package io.shardscan.autoconfigure;

/**
 * A group of {@code scan.*} properties bound by a module of its own, such as {@code scan.dashboard}:
 * listed in {@code META-INF/spring.factories} under this interface's name so that the check for
 * unknown {@code scan.*} keys knows the group's keys too, and still finds the typos in them.
 * Implementations have a public no-argument constructor.
 */
public interface ScanPropertyGroup {

    /** The group's element under {@code scan.}, in dashed form, e.g. {@code dashboard}. */
    String name();

    /** The properties class that binds it, a JavaBean in a package under {@code io.shardscan}. */
    Class<?> type();
}
