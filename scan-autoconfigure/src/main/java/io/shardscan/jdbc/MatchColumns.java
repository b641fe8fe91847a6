package io.shardscan.jdbc;

import io.shardscan.core.task.Match;
import io.shardscan.core.task.TaskDefinition;
import java.math.BigInteger;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Resolves a task's match against its table's columns: each column must exist, and each value
 * must fit the column's type, since it is written into the statements as a literal. Whole-number,
 * text and boolean columns are matched by value; any column can be matched with {@code null}.
 */
final class MatchColumns {

    private static final Set<Integer> TEXTS =
            Set.of(Types.VARCHAR, Types.CHAR, Types.LONGVARCHAR, Types.NVARCHAR, Types.NCHAR, Types.LONGNVARCHAR);
    private static final Set<Integer> BOOLEANS = Set.of(Types.BOOLEAN, Types.BIT);
    private static final Pattern WHOLE_NUMBER = Pattern.compile("[+-]?\\d+");
    // what a value that cannot be written as a literal becomes: a condition no row meets
    private static final String NO_VALUE = "NULL";

    private MatchColumns() {}

    /** The match as SQL and the problems found; the SQL is usable only when there are none. */
    record Resolved(MatchSql sql, List<String> problems) {}

    /** The task's match against the table's columns, given by lower-case name. */
    static Resolved resolve(TaskDefinition task, Map<String, TableInspector.ColumnInfo> columns) {
        List<String> problems = new ArrayList<>();
        List<MatchSql.Condition> conditions = new ArrayList<>();
        for (Match match : task.match()) {
            String property = "scan.tasks." + task.name() + ".match." + match.column();
            TableInspector.ColumnInfo info = columns.get(match.column().toLowerCase(Locale.ROOT));
            if (info == null) {
                problems.add("match column " + match.column() + " (" + property + ") is not a column of "
                        + task.table() + " (its columns: "
                        + String.join(
                                ", ",
                                columns.values().stream()
                                        .map(TableInspector.ColumnInfo::name)
                                        .toList())
                        + "): correct the column's name under scan.tasks." + task.name() + ".match");
                List<String> none = match.values().stream().map(v -> NO_VALUE).toList();
                conditions.add(new MatchSql.Condition(match.column(), match.column(), none));
                continue;
            }
            List<String> literals = new ArrayList<>();
            for (String value : match.values()) {
                literals.add(literal(value, info, property, problems));
            }
            conditions.add(new MatchSql.Condition(info.name(), match.column(), literals));
        }
        return new Resolved(new MatchSql(conditions), problems);
    }

    private static String literal(
            String value, TableInspector.ColumnInfo info, String property, List<String> problems) {
        String type = ColumnTypes.typeName(info);
        String about = "match value '" + value + "' for column " + info.name() + " (" + property + ")";
        if (ColumnTypes.WHOLE_NUMBERS.contains(info.jdbcType()) && info.decimalDigits() <= 0) {
            if (!WHOLE_NUMBER.matcher(value.strip()).matches()) {
                problems.add(about + " is not a whole number, which its type " + type + " needs: write whole numbers,"
                        + " e.g. " + property + "=3");
                return NO_VALUE;
            }
            BigInteger number = new BigInteger(value.strip());
            if (!fits(number, info)) {
                problems.add(about + " is outside the range of its type " + type
                        + ", so no row can match it: correct the value");
                return NO_VALUE;
            }
            return number.toString();
        }
        if (BOOLEANS.contains(info.jdbcType())) {
            String bool = value.strip().toUpperCase(Locale.ROOT);
            if (!bool.equals("TRUE") && !bool.equals("FALSE")) {
                problems.add(about + " is not true or false, which its type " + type + " needs: write true or false");
                return NO_VALUE;
            }
            return bool;
        }
        if (TEXTS.contains(info.jdbcType())) {
            if (value.indexOf('\\') >= 0 || value.indexOf('\0') >= 0) {
                problems.add(about + " holds a backslash or NUL character, which a match value cannot (it is"
                        + " written into the statements as a literal): match on another column");
                return NO_VALUE;
            }
            if (info.size() > 0 && value.length() > info.size()) {
                problems.add(about + " is longer than its type " + type + "(" + info.size()
                        + ") holds, so no row can match it: correct the value");
                return NO_VALUE;
            }
            return "'" + value.replace("'", "''") + "'";
        }
        problems.add("match column " + info.name() + " (" + property + ") is of type " + type
                + ", which match cannot compare with values: match whole-number, text or boolean columns by value,"
                + " or any column with null");
        return NO_VALUE;
    }

    /**
     * Whether a whole number fits the column: a signed integer type from -2^(bits-1) to 2^(bits-1) - 1;
     * MySQL/MariaDB's unsigned ones ({@code INT UNSIGNED}, named so in the type name) from 0 to 2^bits - 1.
     */
    private static boolean fits(BigInteger number, TableInspector.ColumnInfo info) {
        String typeName = info.typeName().toUpperCase(Locale.ROOT);
        boolean unsigned = typeName.contains("UNSIGNED");
        int bits =
                switch (info.jdbcType()) {
                    case Types.TINYINT -> 8;
                    case Types.SMALLINT -> 16;
                    case Types.INTEGER -> typeName.startsWith("MEDIUMINT") ? 24 : 32;
                    case Types.BIGINT -> 64;
                    default -> 0;
                };
        if (unsigned) {
            bits = unsignedBits(typeName, bits);
        }
        if (bits > 0) {
            BigInteger min = unsigned
                    ? BigInteger.ZERO
                    : BigInteger.ONE.shiftLeft(bits - 1).negate();
            BigInteger end = unsigned ? BigInteger.ONE.shiftLeft(bits) : BigInteger.ONE.shiftLeft(bits - 1);
            return number.compareTo(min) >= 0 && number.compareTo(end) < 0;
        }
        // NUMERIC or DECIMAL: its precision in digits, when the driver reports a plausible one
        return info.size() <= 0
                || info.size() >= 1000
                || number.abs().toString().length() <= info.size();
    }

    // a driver may report an unsigned type as the next wider signed one (or BIGINT UNSIGNED as DECIMAL):
    // its name says its width
    private static int unsignedBits(String typeName, int reported) {
        if (typeName.startsWith("TINYINT")) {
            return 8;
        }
        if (typeName.startsWith("SMALLINT")) {
            return 16;
        }
        if (typeName.startsWith("MEDIUMINT")) {
            return 24;
        }
        if (typeName.startsWith("INT")) {
            return 32;
        }
        return typeName.startsWith("BIGINT") ? 64 : reported;
    }
}
