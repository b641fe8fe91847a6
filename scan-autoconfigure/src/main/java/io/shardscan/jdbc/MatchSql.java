package io.shardscan.jdbc;

import java.util.List;

/**
 * A task's match as SQL, resolved against its table: one condition per column, the column as the
 * database spells it, the values as literals checked against the column's type (whole numbers,
 * {@code TRUE}/{@code FALSE}, quoted text without backslashes). Literals rather than parameters:
 * PostgreSQL uses a partial index whose predicate holds {@code biz_type = 3} only for a statement
 * that says so itself, not for {@code biz_type = ?} under a generic plan. Immutable.
 *
 * @param conditions in the order configured; empty when the task takes every row of its table
 */
public record MatchSql(List<Condition> conditions) {

    public MatchSql {
        conditions = List.copyOf(conditions);
    }

    /**
     * One column's condition.
     *
     * @param column the column as the database spells it
     * @param configured the column as the configuration writes it, for the statements shown to users
     * @param literals the values as SQL literals; empty for {@code IS NULL}
     */
    public record Condition(String column, String configured, List<String> literals) {

        public Condition {
            literals = List.copyOf(literals);
        }

        /** The condition on the column written as {@code name}: {@code = literal}, {@code IN (...)} or {@code IS NULL}. */
        public String on(String name) {
            if (literals.isEmpty()) {
                return name + " IS NULL";
            }
            return literals.size() == 1
                    ? name + " = " + literals.get(0)
                    : name + " IN (" + String.join(", ", literals) + ")";
        }
    }

    /** {@code " AND <condition>"} for each column, quoted, to follow a WHERE clause; empty without a match. */
    String and(SqlDialect dialect) {
        StringBuilder sql = new StringBuilder();
        conditions.forEach(c -> sql.append(" AND ").append(c.on(dialect.quote(c.column()))));
        return sql.toString();
    }

    /** The conditions joined by {@code AND}, quoted, as a whole condition; {@code 1 = 1} without a match. */
    String all(SqlDialect dialect) {
        return conditions.isEmpty()
                ? "1 = 1"
                : String.join(
                        " AND ",
                        conditions.stream()
                                .map(c -> c.on(dialect.quote(c.column())))
                                .toList());
    }

    /** The conditions with the configured names, as an index's DDL writes them. */
    public List<String> ddl() {
        return conditions.stream().map(c -> c.on(c.configured())).toList();
    }

    /** The configured names of the match's columns. */
    public List<String> configuredColumns() {
        return conditions.stream().map(Condition::configured).toList();
    }
}
