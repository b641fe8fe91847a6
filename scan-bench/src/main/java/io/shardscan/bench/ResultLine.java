package io.shardscan.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/** The one machine-readable line of a scenario: {@code RESULT <scenario> key=value ...}. */
public final class ResultLine {

    /** What a well-formed line looks like. */
    public static final Pattern FORMAT = Pattern.compile("RESULT [a-z]+( [a-z][a-z0-9_]*=[A-Za-z0-9_.+-]+)+");

    private final String scenario;
    private final Map<String, String> values = new LinkedHashMap<>();

    public ResultLine(String scenario) {
        this.scenario = scenario;
    }

    /** Adds an integer value. */
    public ResultLine put(String key, long value) {
        values.put(key, Long.toString(value));
        return this;
    }

    /** Adds a decimal value with up to three decimals; NaN and infinities are written as {@code nan}. */
    public ResultLine put(String key, double value) {
        values.put(
                key,
                Double.isFinite(value)
                        ? String.format(Locale.ROOT, "%.3f", value).replaceAll("\\.?0+$", "")
                        : "nan");
        return this;
    }

    /** Adds a word (letters, digits, {@code _.-+}). */
    public ResultLine put(String key, String value) {
        values.put(key, value.replaceAll("[^A-Za-z0-9_.+-]", "_"));
        return this;
    }

    @Override
    public String toString() {
        StringBuilder line = new StringBuilder("RESULT ").append(scenario);
        values.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        return line.toString();
    }
}
