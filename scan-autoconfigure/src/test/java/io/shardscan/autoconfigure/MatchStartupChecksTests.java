package io.shardscan.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.Match;
import io.shardscan.testsupport.StartupProblems;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The startup checks of {@code match}, on H2 with two tasks, {@code vip} and {@code normal}, on one
 * table: a column that is not there, a value the column's type cannot hold and two tasks that
 * would take the same rows fail startup naming the property and the fix.
 */
@ExtendWith(OutputCaptureExtension.class)
class MatchStartupChecksTests {

    private static final String VIP = "scan.tasks.vip.";
    private static final String NORMAL = "scan.tasks.normal.";

    private static ApplicationContextRunner runner() {
        String url = OrderDatabase.create();
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE tb_order ADD COLUMN biz_type SMALLINT");
            statement.execute("ALTER TABLE tb_order ADD COLUMN kind VARCHAR(8)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, ScanAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + url,
                        VIP + "table=tb_order",
                        VIP + "id-column=order_id",
                        VIP + "shard-key-column=user_id",
                        NORMAL + "table=tb_order",
                        NORMAL + "id-column=order_id",
                        NORMAL + "shard-key-column=user_id")
                .withUserConfiguration(Handlers.class);
    }

    @Test
    void disjointMatchesStartEachTaskWithItsOwn() {
        runner().withPropertyValues(
                        VIP + "match.biz_type=3", NORMAL + "match.biz_type[0]=4", NORMAL + "match.biz_type[1]=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ScanEngine engine = context.getBean(ScanEngine.class);
                    assertThat(engine.task("vip").definition().match()).containsExactly(Match.of("biz_type", 3));
                    assertThat(engine.task("normal").definition().match()).containsExactly(Match.of("biz_type", 4, 5));
                });
    }

    @Test
    void nullAndValuesOfOneColumnAreDisjoint() {
        runner().withPropertyValues(VIP + "match.biz_type=3", NORMAL + "match.biz_type=")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ScanEngine.class)
                                    .task("normal")
                                    .definition()
                                    .match())
                            .containsExactly(Match.isNull("biz_type"));
                });
    }

    @Test
    void unknownMatchColumnFailsNamingThePropertyAndTheColumns() {
        runner().withPropertyValues(VIP + "match.biz_typ=3", VIP + "match.biz_type=3", NORMAL + "match.biz_type=4")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith(
                                "scan.tasks.vip: match column biz_typ (scan.tasks.vip.match.biz_typ) is not a column"
                                        + " of tb_order")
                        .containsIgnoringCase("(its columns: order_id, user_id, status")
                        .contains("correct the column's name under scan.tasks.vip.match"));
    }

    @Test
    void valuesTheColumnsTypeCannotHoldFailNamingTheType() {
        runner().withPropertyValues(
                        VIP + "match.biz_type=vip", VIP + "match.kind=much-too-long", NORMAL + "match.biz_type=70000")
                .run(context -> assertThat(StartupProblems.of(context))
                        .satisfiesExactlyInAnyOrder(
                                p -> assertThat(p)
                                        .startsWith("scan.tasks.vip: match value 'vip' for column BIZ_TYPE"
                                                + " (scan.tasks.vip.match.biz_type) is not a whole number, which its"
                                                + " type SMALLINT needs")
                                        .contains("write whole numbers, e.g. scan.tasks.vip.match.biz_type=3"),
                                p -> assertThat(p)
                                        .startsWith("scan.tasks.vip: match value 'much-too-long' for column KIND"
                                                + " (scan.tasks.vip.match.kind) is longer than its type")
                                        .contains("(8) holds"),
                                p -> assertThat(p)
                                        .startsWith("scan.tasks.normal: match value '70000' for column BIZ_TYPE"
                                                + " (scan.tasks.normal.match.biz_type) is outside the range of its"
                                                + " type SMALLINT")));
    }

    @Test
    void overlappingMatchesFailNamingBothTasksTheSharedRowsAndTheFix() {
        runner().withPropertyValues(VIP + "match.biz_type=3,4", NORMAL + "match.biz_type=4")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.tasks.vip.match and scan.tasks.normal.match both select the pending rows of"
                                + " tb_order where biz_type = 4, so both tasks would process them")
                        .contains("make the matches disjoint")
                        .contains("or set scan.tasks.normal.match-overlap=allowed"));
    }

    @Test
    void tasksWithoutMatchOnOneTableOverlapEntirely() {
        runner().run(context -> assertThat(StartupProblems.of(context))
                .singleElement()
                .asString()
                .contains("(no match: the whole table) and scan.tasks.")
                .contains("(no match: the whole table) both select every pending row of tb_order"));
    }

    @Test
    void anOverlapThatIsAllowedStarts() {
        runner().withPropertyValues(
                        VIP + "match.biz_type=3,4", NORMAL + "match.biz_type=4", NORMAL + "match-overlap=allowed")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void matchOnAColumnTheEngineWritesFails() {
        runner().withPropertyValues(VIP + "match.status=0", NORMAL + "match.biz_type=4")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.tasks.vip.match.status matches a column the engine writes"));
    }

    @Test
    void misspelledMatchIsUnknownWhileAnyColumnUnderMatchIsKnown() {
        runner().withPropertyValues(
                        VIP + "mach.biz_type=3",
                        VIP + "match.biz_type=3",
                        NORMAL + "match.biz_type=4",
                        NORMAL + "match.Kind[0]=a")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.tasks.vip.mach.")
                        .contains("is not a Shardscan property: 'mach' is unknown")
                        .contains("did you mean 'match'?"));
    }

    @Test
    void aMisspelledMatchKeyShowsOnlyItselfNotAnOverlapFollowingFromIt() {
        // vip's match is under mach, so vip has none and would overlap normal's rows: that follows from the typo
        runner().withPropertyValues(VIP + "mach.biz_type=3", NORMAL + "match.biz_type=4")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.tasks.vip.mach.")
                        .contains("did you mean 'match'?"));
    }

    @Test
    void aMatchOnAMissingColumnShowsOnlyItselfNotAnOverlapNamingThatColumn() {
        runner().withPropertyValues(VIP + "match.biz_typ=3", NORMAL + "match.biz_type=4")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .startsWith("scan.tasks.vip: match column biz_typ (scan.tasks.vip.match.biz_typ) is not a"
                                + " column of tb_order"));
        // a value the column cannot hold fails the match just as well
        runner().withPropertyValues(VIP + "match.biz_type=70000", NORMAL + "match.kind=a")
                .run(context -> assertThat(StartupProblems.of(context))
                        .singleElement()
                        .asString()
                        .contains("is outside the range of its type SMALLINT"));
    }

    @Test
    void pendingRowsNoTasksMatchSelectsAreWarnedWithTheirCount(CapturedOutput output) {
        String url = OrderDatabase.create();
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE tb_order ADD COLUMN biz_type SMALLINT");
            statement.execute("ALTER TABLE tb_order ADD COLUMN kind VARCHAR(8)");
            // 3 and 4 are vip's and normal's; 5 and NULL no task's; a done 5 is no one's business
            statement.execute("INSERT INTO tb_order (order_id, user_id, status, updated_at, biz_type) VALUES"
                    + " (1, 1, 0, CURRENT_TIMESTAMP, 3), (2, 1, 0, CURRENT_TIMESTAMP, 4),"
                    + " (3, 1, 0, CURRENT_TIMESTAMP, 5), (4, 1, 0, CURRENT_TIMESTAMP, NULL),"
                    + " (5, 1, 1, CURRENT_TIMESTAMP, 5)");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        runner().withPropertyValues(
                        "spring.datasource.url=" + url, VIP + "match.biz_type=3", NORMAL + "match.biz_type=4")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output.getOut() + output.getErr())
                            .contains("scan.tasks.vip, scan.tasks.normal: 2 pending rows of tb_order meet none of these"
                                    + " tasks' matches (vip: biz_type = 3; normal: biz_type = 4), so no task ever"
                                    + " fetches them. Widen a match or add a task whose match takes them");
                });
        int warnings = (output.getOut() + output.getErr()).split("meet none of these").length;
        // once a task takes the rest, nothing is left unmatched
        runner().withPropertyValues(
                        "spring.datasource.url=" + url,
                        VIP + "match.biz_type=3",
                        NORMAL + "match.biz_type[0]=4",
                        NORMAL + "match.biz_type[1]=5",
                        "scan.tasks.rest.table=tb_order",
                        "scan.tasks.rest.id-column=order_id",
                        "scan.tasks.rest.shard-key-column=user_id",
                        "scan.tasks.rest.match.biz_type=")
                .withUserConfiguration(RestHandler.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat((output.getOut() + output.getErr()).split("meet none of these"))
                            .hasSize(warnings);
                });
    }

    static class RestHandler {
        @ScanTask("rest")
        public void rest(java.util.Map<String, Object> row) {}
    }

    static class Handlers {
        @ScanTask("vip")
        public void vip(java.util.Map<String, Object> row) {}

        @ScanTask("normal")
        public void normal(java.util.Map<String, Object> row) {}
    }
}
