package io.shardscan.dashboard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The README's Java blocks and the test classes that run them, as lines to compare, blank lines and indents aside. */
final class ReadmeCode {

    private ReadmeCode() {}

    /** The lines of the first Java block after {@code marker} in the project's README. */
    static List<String> javaBlockAfter(String marker) throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        int start = readme.indexOf("```java\n", readme.indexOf(marker)) + "```java\n".length();
        return lines(readme.substring(start, readme.indexOf("```", start)));
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
