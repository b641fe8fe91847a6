package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.testsupport.JdbcEndpoint;
import io.shardscan.testsupport.StartupProblems;
import io.shardscan.testsupport.TestServers;
import io.shardscan.testsupport.UserTable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The startup checks of a range task ({@code mode: range}) are a status task's: the handler's row type
 * against the table's columns, the id column with the columns listed, the index on the id; settings only
 * the other mode reads fail, all problems reported together.
 */
@ExtendWith(OutputCaptureExtension.class)
class RangeStartupChecksTests {

    private static final JdbcEndpoint DB = TestServers.h2Endpoint("range_startup");
    private static final String TASK = "scan.tasks.notify.";

    private UserTable users;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=" + DB.url(),
                    "spring.datasource.username=" + DB.user(),
                    TASK + "mode=range",
                    TASK + "table=tb_user",
                    TASK + "id-column=user_id");

    /** A user as the handler takes it; {@code email} is no column of tb_user. */
    record User(long userId, String name, String email) {}

    static class Notifier {
        @ScanTask("notify")
        public void notify(User user) {}
    }

    /** Takes only columns tb_user has. */
    record KnownUser(long userId, String name) {}

    static class KnownNotifier {
        @ScanTask("notify")
        public void notify(KnownUser user) {}
    }

    @BeforeEach
    void setUp() {
        users = new UserTable(TestServers.h2("range_startup")).recreate();
    }

    @Test
    void aRecordComponentWithoutItsColumnFailsStartup() {
        runner.withBean(Notifier.class).run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .startsWith("scan.tasks.notify: @ScanTask(\"notify\")")
                .contains("takes User, whose component email matches no column")
                .containsIgnoringCase("the columns are user_id, name"));
        runner.withBean(KnownNotifier.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aMissingIdColumnListsTheTableColumnsOnce() {
        runner.withBean(KnownNotifier.class)
                .withPropertyValues(TASK + "id-column=id")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .isEqualTo("scan.tasks.notify.id-column: table tb_user has no column id (its columns:"
                                + " USER_ID, NAME): point scan.tasks.notify.id-column at its whole-number id column"
                                + " (the primary key)"));
    }

    @Test
    void statusOnlySettingsFailARangeTaskAndEveryProblemIsReportedTogether() {
        runner.withBean(Notifier.class)
                .withPropertyValues(TASK + "status-column=status", TASK + "shards=16", "scan.tasks.orders.range-size=5")
                .run(context -> assertThat(StartupProblems.of(context))
                        .anySatisfy(p -> assertThat(p)
                                .isEqualTo("scan.tasks.notify runs in range mode (mode: range), which reads each id"
                                        + " once and writes nothing back, so it has no shards, status-column: remove"
                                        + " them, or remove mode: range to scan by a status column"))
                        .anySatisfy(p -> assertThat(p)
                                .startsWith(
                                        "scan.tasks.orders.range-size is set but the task" + " has a status column"))
                        .anySatisfy(p -> assertThat(p).contains("component email matches no column")));
    }

    @Test
    void aFollowGraceOnARunThatDoesNotFollowFailsStartup() {
        runner.withBean(KnownNotifier.class)
                .withPropertyValues(TASK + "follow-grace=20s")
                .run(context -> assertThat(StartupProblems.of(context))
                        .containsExactly("scan.tasks.notify.follow-grace is set but the task's run is once (the default"
                                + " for mode: range), which reads the ids its run snapshotted and waits for no late"
                                + " commit: set scan.tasks.notify.run=follow to keep following the table's new ids,"
                                + " or remove follow-grace"));
        runner.withBean(KnownNotifier.class)
                .withPropertyValues(TASK + "follow-grace=20s", TASK + "run=follow")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aMissingIndexOnTheIdWarns(CapturedOutput output) {
        users.jdbc().execute("DROP TABLE tb_user");
        users.jdbc().execute("CREATE TABLE tb_user (user_id BIGINT NOT NULL, name VARCHAR(64))");
        runner.withBean(KnownNotifier.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output.getOut() + output.getErr())
                    .contains("scan.tasks.notify: table tb_user has no index that starts with its id column user_id")
                    .contains("CREATE INDEX tb_user_user_id_idx ON tb_user (user_id);")
                    .contains("or set scan.tasks.notify.index-check=off to silence this");
        });
        runner.withBean(KnownNotifier.class)
                .withPropertyValues(TASK + "index-check=fail")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains("has no index that starts with its id column"));
    }
}
