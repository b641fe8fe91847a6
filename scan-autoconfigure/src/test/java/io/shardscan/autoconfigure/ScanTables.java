package io.shardscan.autoconfigure;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.context.ApplicationContext;

/** Whether Shardscan's own tables exist in a context's database. */
final class ScanTables {

    private ScanTables() {}

    static boolean present(ApplicationContext context) throws SQLException {
        Set<String> tables = new HashSet<>();
        try (Connection connection = context.getBean(DataSource.class).getConnection();
                ResultSet rs = connection.getMetaData().getTables(null, null, "%", new String[] {"TABLE"})) {
            while (rs.next()) {
                tables.add(rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT));
            }
        }
        return tables.containsAll(Set.of("scan_lease", "scan_member", "scan_fence"));
    }
}
