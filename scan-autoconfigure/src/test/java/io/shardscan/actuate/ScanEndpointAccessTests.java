package io.shardscan.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.shardscan.annotation.ScanTask;
import io.shardscan.autoconfigure.ScanAutoConfiguration;
import io.shardscan.testsupport.CapturedLog;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.OrderTable;
import io.shardscan.testsupport.TestServers;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * One switch for the scan endpoint's writes, Spring Boot's own {@code management.endpoint.scan.access}: one
 * condition per test. A write is a {@code pause} through the endpoint bean, as JMX calls it; over HTTP the
 * same flag answers 403 (ScanEndpointHttpTests).
 */
class ScanEndpointAccessTests {

    private static final JdbcEndpoint DB = TestServers.h2Endpoint("endpoint_access");

    static {
        // dead rows: the engine leaves them alone
        new OrderTable(TestServers.h2("endpoint_access"))
                .recreate(8, true)
                .insert(10, 7, Instant.now())
                .jdbc()
                .update("UPDATE tb_order SET status = 2");
    }

    @RegisterExtension
    final CapturedLog log = new CapturedLog(ScanEndpointAutoConfiguration.class.getName());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            // as SpringApplication's environment converts: unrestricted, read-only (the bare runner wants UNRESTRICTED)
            .withInitializer(
                    context -> context.getEnvironment().setConversionService(new ApplicationConversionService()))
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    ScanAutoConfiguration.class,
                    ScanEndpointAutoConfiguration.class))
            .withBean(Orders.class)
            .withPropertyValues(
                    "spring.datasource.url=" + DB.url(),
                    "spring.datasource.username=" + DB.user(),
                    "management.endpoints.web.exposure.include=scan",
                    "scan.node-id=solo",
                    "scan.tasks.orders.table=tb_order",
                    "scan.tasks.orders.id-column=order_id",
                    "scan.tasks.orders.shard-key-column=user_id",
                    "scan.tasks.orders.shards=8");

    @Test
    void writesAreOffWhileNobodySetTheAccess() {
        runner.run(context -> assertThatIllegalStateException()
                .isThrownBy(() -> pause(context))
                .withMessage("Write operations of the scan endpoint are off: set"
                        + " management.endpoint.scan.access=unrestricted to allow them"));
    }

    @Test
    void accessUnrestrictedTurnsWritesOn() {
        runner.withPropertyValues("management.endpoint.scan.access=unrestricted")
                .run(context -> assertThat(pause(context).state()).hasToString("PAUSED"));
    }

    @Test
    void accessReadOnlyKeepsWritesOff() {
        runner.withPropertyValues("management.endpoint.scan.access=read-only")
                .run(context -> assertThatIllegalStateException().isThrownBy(() -> pause(context)));
    }

    @Test
    void theDeprecatedSwitchStillTurnsWritesOnAndNamesItsReplacement() {
        runner.withPropertyValues("scan.endpoint.write-enabled=true").run(context -> {
            assertThat(pause(context).state()).hasToString("PAUSED");
            assertThat(log.warnings())
                    .singleElement()
                    .asString()
                    .startsWith("scan.endpoint.write-enabled is deprecated: set"
                            + " management.endpoint.scan.access=unrestricted instead");
        });
    }

    @Test
    void anAccessThatIsSetWinsOverTheDeprecatedSwitch() {
        runner.withPropertyValues("scan.endpoint.write-enabled=true", "management.endpoint.scan.access=read-only")
                .run(context -> assertThatIllegalStateException().isThrownBy(() -> pause(context)));
        runner.withPropertyValues("scan.endpoint.write-enabled=false", "management.endpoint.scan.access=unrestricted")
                .run(context -> assertThat(pause(context).state()).hasToString("PAUSED"));
    }

    /** As Boot resolves every endpoint's access: the endpoints' default when the endpoint's own is unset. */
    @Test
    void theEndpointsDefaultAccessAppliesWhenTheScanEndpointsIsUnset() {
        runner.withPropertyValues("management.endpoints.access.default=unrestricted")
                .run(context -> assertThat(pause(context).state()).hasToString("PAUSED"));
    }

    /** As Boot caps every endpoint's access, the deprecated switch included. */
    @Test
    void maxPermittedAccessCapsWrites() {
        runner.withPropertyValues(
                        "management.endpoints.access.max-permitted=read-only",
                        "management.endpoint.scan.access=unrestricted",
                        "scan.endpoint.write-enabled=true")
                .run(context -> assertThatIllegalStateException().isThrownBy(() -> pause(context)));
    }

    private static ActionDescriptor pause(AssertableApplicationContext context) {
        return context.getBean(ScanEndpoint.class).act("orders", "pause", null, SecurityContext.NONE);
    }

    /** Does nothing; the table holds only dead rows. */
    static class Orders {
        @ScanTask("orders")
        public void send(Map<String, Object> order) {}
    }
}
