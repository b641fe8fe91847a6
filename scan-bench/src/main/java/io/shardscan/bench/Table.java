package io.shardscan.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** A plain-text table with a title, a header row and aligned columns, plus free notes below it. */
public final class Table {

    private final String title;
    private final List<String[]> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    public Table(String title, String... header) {
        this.title = title;
        rows.add(header);
    }

    /** Adds a row; numbers are formatted with thousands separators (integers) or two decimals. */
    public Table row(Object... cells) {
        rows.add(Arrays.stream(cells).map(Table::format).toArray(String[]::new));
        return this;
    }

    /** Adds a line of text printed under the table. */
    public Table note(String note) {
        notes.add(note);
        return this;
    }

    static String format(Object cell) {
        if (cell instanceof Double || cell instanceof Float) {
            return String.format(Locale.ROOT, "%,.2f", ((Number) cell).doubleValue());
        }
        if (cell instanceof Number) {
            return String.format(Locale.ROOT, "%,d", ((Number) cell).longValue());
        }
        return String.valueOf(cell);
    }

    /** Prints the table. */
    public void print(PrintStream out) {
        int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        out.println();
        out.println("== " + title + " ==");
        for (int r = 0; r < rows.size(); r++) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < rows.get(r).length; i++) {
                String cell = rows.get(r)[i];
                line.append(
                        i == 0
                                ? String.format("%-" + widths[i] + "s", cell)
                                : String.format("  %" + widths[i] + "s", cell));
            }
            out.println(line);
            if (r == 0) {
                out.println("-".repeat(line.length()));
            }
        }
        notes.forEach(n -> out.println("  * " + n));
        out.println();
    }
}
