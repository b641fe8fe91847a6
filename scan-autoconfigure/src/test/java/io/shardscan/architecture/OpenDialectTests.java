package io.shardscan.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The "open strategies" rule on the sources, where ArchUnit does not look: SQL that one database
 * spells its own way is the dialect's ({@code *Dialect.java}), and the shard formula is {@code
 * SchemaDdl}'s, so that a new database is one dialect class (CONTRIBUTING.md, Adding a database).
 */
class OpenDialectTests {

    private static final Path SOURCES = Path.of("src", "main", "java");

    /** A {@code LIMIT} inside a string literal: the dialect's {@code limit} hook writes it. */
    private static final Pattern LIMIT = Pattern.compile("\"[^\"]*\\bLIMIT\\b[^\"]*\"");

    @Test
    void noLimitOutsideTheDialects() throws IOException {
        assertThat(lines(LIMIT, "Dialect.java")).isEmpty();
    }

    @Test
    void noCopyOfTheShardFormulaOutsideSchemaDdl() throws IOException {
        assertThat(lines(Pattern.compile("MOD\\(MOD\\("), "SchemaDdl.java")).isEmpty();
    }

    @Test
    void noInstanceofADialect() throws IOException {
        assertThat(lines(Pattern.compile("instanceof \\w*Dialect\\b"), "Dialect.java"))
                .isEmpty();
    }

    /** The lines, as {@code file:line: text}, that match {@code pattern} in code (not comments) of files not ending in {@code allowed}. */
    private static List<String> lines(Pattern pattern, String allowed) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")
                            && !f.getFileName().toString().endsWith(allowed))
                    .toList()) {
                List<String> text = Files.readAllLines(file);
                for (int i = 0; i < text.size(); i++) {
                    String line = text.get(i).strip();
                    boolean comment = line.startsWith("*") || line.startsWith("/*") || line.startsWith("//");
                    if (!comment && pattern.matcher(line).find()) {
                        found.add(file + ":" + (i + 1) + ": " + line);
                    }
                }
            }
        }
        return found;
    }
}
