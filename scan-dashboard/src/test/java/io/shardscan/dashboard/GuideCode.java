package io.shardscan.dashboard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The Java blocks of the dashboard guide ({@code docs/guides/dashboard.md}, moved there from the README) and the test
 * classes that run them, as lines to compare, blank lines and indents aside.
 */
final class GuideCode {

    private GuideCode() {}

    /** The lines of the first Java block after {@code marker} in the dashboard guide. */
    static List<String> javaBlockAfter(String marker) throws IOException {
        String guide = Files.readString(Path.of("..", "docs", "guides", "dashboard.md"));
        int at = guide.indexOf(marker);
        if (at < 0) {
            throw new IllegalStateException("docs/guides/dashboard.md has no " + marker);
        }
        int start = guide.indexOf("```java\n", at) + "```java\n".length();
        return lines(guide.substring(start, guide.indexOf("```", start)));
    }

    /** The lines of {@code testClass}'s source in this module. */
    static List<String> sourceOf(Class<?> testClass) throws IOException {
        return lines(
                Files.readString(Path.of("src/test/java", testClass.getName().replace('.', '/') + ".java")));
    }

    private static List<String> lines(String text) {
        return text.lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
    }
}
