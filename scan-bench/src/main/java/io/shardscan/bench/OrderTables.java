package io.shardscan.bench;

import io.shardscan.core.task.TaskDefinition;
import io.shardscan.jdbc.SchemaDdl;
import io.shardscan.jdbc.SqlDialect;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * The sharded and tasks scenarios' orders: tables {@code tb_order_0000 …} over databases {@code bench_sharded_0 …}
 * (or another prefix) of the bench's PostgreSQL server, in contiguous runs (with 1024 tables in 4 databases,
 * {@code tb_order_0000..0255} in the first), each table with the columns of {@code bench_task} and the scan index
 * of a task of it with the given shards, and Shardscan's own tables in every database. Only those databases are
 * touched.
 */
final class OrderTables {

    /** The databases' names, numbered from 0. */
    static final String DATABASE_PREFIX = "bench_sharded_";

    private final int tables;
    private final int databases;
    private final int shards;
    private final int perDatabase;
    private final List<String> urls = new ArrayList<>();

    private OrderTables(String serverUrl, String prefix, int tables, int databases, int shards) {
        if (databases < 1 || tables < databases || tables % databases != 0) {
            throw new IllegalArgumentException("--tables " + tables + " over --databases " + databases
                    + ": give each database as many tables, at least one");
        }
        this.tables = tables;
        this.databases = databases;
        this.shards = shards;
        this.perDatabase = tables / databases;
        for (int d = 0; d < databases; d++) {
            urls.add(Pg.database(serverUrl, prefix + d));
        }
    }

    /**
     * Creates the databases when missing, and in each drops every {@code tb_order_*} table, creates its
     * own empty and indexed, and Shardscan's tables (the {@code bench-*} tasks' rows cleared).
     */
    static OrderTables create(String serverUrl, int tables, int databases) {
        return create(serverUrl, DATABASE_PREFIX, tables, databases, 1);
    }

    /** The same in databases {@code prefix0 …}, each table's scan index that of a task with {@code shards} shards. */
    static OrderTables create(String serverUrl, String prefix, int tables, int databases, int shards) {
        OrderTables orders = new OrderTables(serverUrl, prefix, tables, databases, shards);
        // one after another: a parallel stream's threads lack the jar's class loader, which reads the DDL scripts
        IntStream.range(0, databases).forEach(orders::recreate);
        return orders;
    }

    private void recreate(int database) {
        try (Pg pg = new Pg(urls.get(database), 1)) {
            for (String old : pg.jdbc()
                    .queryForList(
                            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
                                    + " AND tablename LIKE 'tb\\_order\\_%'",
                            String.class)) {
                pg.jdbc().execute("DROP TABLE " + old);
            }
            SqlDialect dialect = SqlDialect.detect(pg.dataSource());
            for (int table : tablesOf(database)) {
                List<String> ddl = new ArrayList<>();
                ddl.add("CREATE TABLE " + name(table) + " (id BIGINT PRIMARY KEY, shard_key BIGINT NOT NULL,"
                        + " status SMALLINT NOT NULL DEFAULT 0, retry_count INT NOT NULL DEFAULT 0,"
                        + " updated_at TIMESTAMP NOT NULL, last_error VARCHAR(512))");
                ddl.addAll(SchemaDdl.scanIndexStatements(
                        dialect,
                        TaskDefinition.builder("bench-sharded")
                                .table(name(table))
                                .idColumn("id")
                                .shardKeyColumn("shard_key")
                                .shards(shards)
                                .build()));
                // one round trip per table: 1024 tables are 3,072 statements
                pg.jdbc().execute(String.join(";\n", ddl));
            }
            pg.coordinationTables();
        }
    }

    static String name(int table) {
        return String.format(Locale.ROOT, "tb_order_%04d", table);
    }

    int tables() {
        return tables;
    }

    int databases() {
        return databases;
    }

    String url(int database) {
        return urls.get(database);
    }

    /** The database holding {@code table}. */
    int databaseOf(int table) {
        return table / perDatabase;
    }

    List<Integer> tablesOf(int database) {
        return IntStream.range(database * perDatabase, (database + 1) * perDatabase)
                .boxed()
                .toList();
    }

    /** The tables of {@code database} in the form of {@code scan.tasks.X.tables}, e.g. {@code tb_order_{0000..0255}}. */
    String range(int database) {
        List<Integer> held = tablesOf(database);
        return String.format(Locale.ROOT, "tb_order_{%04d..%04d}", held.get(0), held.get(held.size() - 1));
    }

    /** The last {@code busy} tables: the seed's worst case, every other table before them. */
    List<Integer> busy(int busy) {
        return IntStream.range(tables - Math.min(busy, tables), tables).boxed().toList();
    }

    /** Inserts {@code count} pending rows with ids {@code from ..} into {@code table}, due now, in one statement. */
    void insert(Pg pg, int table, long from, long count) {
        pg.jdbc()
                .update(
                        "INSERT INTO " + name(table) + " (id, shard_key, updated_at)"
                                + " SELECT g, g % 1000, LOCALTIMESTAMP FROM generate_series(?::bigint, ?::bigint) g",
                        from,
                        from + count - 1);
    }

    /** Empties {@code tables}. */
    void truncate(List<Integer> tables) {
        for (int d = 0; d < databases; d++) {
            int database = d;
            List<String> names = tables.stream()
                    .filter(t -> databaseOf(t) == database)
                    .map(OrderTables::name)
                    .toList();
            if (!names.isEmpty()) {
                try (Pg pg = new Pg(url(d), 1)) {
                    pg.jdbc().execute("TRUNCATE " + String.join(", ", names));
                }
            }
        }
    }
}
