package io.shardscan.testsupport;

import java.time.Instant;
import java.time.ZoneId;
import java.util.TimeZone;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Runs a test class in a JVM zone whose offset is not the MySQL or MariaDB server's: Asia/Shanghai,
 * or America/New_York on a server with Shanghai's offset (register with a static
 * {@code @RegisterExtension}). The due check of a zone-less due-at column is right only when it
 * reads the database's clock in the zone the driver writes the rows' {@code Timestamp}s in, the
 * JVM's; on a machine whose zone is the server's (UTC on CI) only another JVM zone tells the two
 * apart. The zone is set before the class's first test and restored after its last: test classes
 * run one after another in the test JVM, and MariaDB's driver takes the zone at each call, so no
 * other class sees it.
 */
public final class JvmZoneNotTheServers implements BeforeAllCallback, AfterAllCallback {

    private final Supplier<DataSource> server;
    private TimeZone before = TimeZone.getDefault();

    /** {@code server}: a pool on the MySQL or MariaDB server whose zone to avoid. */
    public JvmZoneNotTheServers(Supplier<DataSource> server) {
        this.server = server;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Integer serverOffset = new JdbcTemplate(server.get())
                .queryForObject("SELECT TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(), NOW())", Integer.class);
        ZoneId shanghai = ZoneId.of("Asia/Shanghai");
        boolean shanghaiIsTheServers = serverOffset != null
                && shanghai.getRules().getOffset(Instant.now()).getTotalSeconds() == serverOffset;
        before = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone(shanghaiIsTheServers ? ZoneId.of("America/New_York") : shanghai));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        TimeZone.setDefault(before);
    }
}
