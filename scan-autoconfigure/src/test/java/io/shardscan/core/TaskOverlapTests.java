package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.task.Match;
import io.shardscan.core.task.MatchOverlap;
import io.shardscan.core.task.TaskDefinition;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which tasks would fetch the same pending rows, decided from their configuration alone. */
class TaskOverlapTests {

    private static TaskDefinition.Builder task(String name, Match... match) {
        return TaskDefinition.builder(name).table("tb_order").match(List.of(match));
    }

    @Test
    void aValueInCommonIsSharedWhateverItsSpelling() {
        assertThat(TaskOverlap.shared(
                        task("vip", Match.of("biz_type", "03", 4)).build(),
                        task("normal", Match.of("BIZ_TYPE", 3)).build()))
                .containsExactly(Match.of("biz_type", "03"));
    }

    @Test
    void noValueInCommonOrNullAgainstValuesIsDisjoint() {
        assertThat(TaskOverlap.shared(
                        task("vip", Match.of("biz_type", 3)).build(),
                        task("normal", Match.of("biz_type", 4, 5)).build()))
                .isNull();
        assertThat(TaskOverlap.shared(
                        task("live", Match.isNull("deleted_at")).build(),
                        task("gone", Match.of("deleted_at", 1)).build()))
                .isNull();
        assertThat(TaskOverlap.shared(
                        task("a", Match.isNull("deleted_at")).build(),
                        task("b", Match.isNull("deleted_at")).build()))
                .containsExactly(Match.isNull("deleted_at"));
    }

    @Test
    void conditionsOnDifferentColumnsLeaveRowsToBoth() {
        assertThat(TaskOverlap.shared(
                        task("vip", Match.of("biz_type", 3)).build(),
                        task("cn", Match.of("region", "cn")).build()))
                .containsExactly(Match.of("biz_type", 3), Match.of("region", "cn"));
    }

    @Test
    void anotherStatusColumnPendingValueOrTableSharesNothing() {
        TaskDefinition sms = task("sms").build();
        assertThat(TaskOverlap.shared(
                        sms, task("push").statusColumn("push_status").build()))
                .isNull();
        assertThat(TaskOverlap.shared(sms, task("second-step").statuses(1, 3, 4).build()))
                .isNull();
        assertThat(TaskOverlap.shared(sms, task("other").table("tb_refund").build()))
                .isNull();
        assertThat(TaskOverlap.shared(
                        task("a").table("shop_a.tb_order").build(),
                        task("b").table("shop_b.tb_order").build()))
                .isNull();
        assertThat(TaskOverlap.shared(task("a").table("public.TB_ORDER").build(), sms))
                .isEmpty();
    }

    @Test
    void theFixNamesTheColumnTheTasksOverlapOn() {
        assertThat(TaskOverlap.problems(List.of(
                        task("sms", Match.of("channel", "sms", "all")).build(),
                        task("push", Match.of("channel", "all")).build())))
                .singleElement()
                .asString()
                .contains("e.g. scan.tasks.sms.match.channel and scan.tasks.push.match.channel with no value in"
                        + " common")
                .doesNotContain("biz_type");
        // matched on different columns: the shared rows' first column
        assertThat(TaskOverlap.problems(List.of(
                        task("vip", Match.of("tier", 3)).build(),
                        task("cn", Match.of("region", "cn")).build())))
                .singleElement()
                .asString()
                .contains("e.g. scan.tasks.vip.match.tier and scan.tasks.cn.match.tier with no value in common");
        // no match at all: no column to name
        assertThat(TaskOverlap.problems(List.of(task("a").build(), task("b").build())))
                .singleElement()
                .asString()
                .contains("e.g. scan.tasks.a.match.<column>=1 and scan.tasks.b.match.<column>=2, on a column of"
                        + " tb_order that tells their rows apart")
                .doesNotContain("biz_type");
    }

    @Test
    void anOverlapIsAProblemUnlessEitherTaskAllowsIt() {
        TaskDefinition vip = task("vip", Match.of("biz_type", 3, 4)).build();
        TaskDefinition normal = task("normal", Match.of("biz_type", 4)).build();
        assertThat(TaskOverlap.problems(List.of(vip, normal)))
                .singleElement()
                .asString()
                .contains("where biz_type = 4")
                .contains("scan.tasks.normal.match-overlap=allowed");
        assertThat(TaskOverlap.problems(List.of(
                        vip,
                        task("normal", Match.of("biz_type", 4))
                                .matchOverlap(MatchOverlap.ALLOWED)
                                .build())))
                .isEmpty();
    }

    @Test
    void aMatchNamesEachColumnOnceAndNoneTheEngineWrites() {
        assertThatThrownBy(() -> task("vip", Match.of("biz_type", 3), Match.of("BIZ_TYPE", 4))
                        .build())
                .hasMessage("scan.tasks.vip.match names column BIZ_TYPE twice: give each column once");
        assertThatThrownBy(() -> task("vip", Match.isNull("last_error")).build())
                .hasMessageStartingWith("scan.tasks.vip.match.last_error matches a column the engine writes");
        assertThatThrownBy(() -> task("vip", Match.of("biz_type;--", 3)).build())
                .hasMessageStartingWith("scan.tasks.vip.match.biz_type;-- 'biz_type;--' is not a plain SQL identifier");
        assertThatThrownBy(() -> task("vip", Match.of("kind", "a", "")).build())
                .hasMessageStartingWith("scan.tasks.vip.match.kind has an empty value");
    }
}
