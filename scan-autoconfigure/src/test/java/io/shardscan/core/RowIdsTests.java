package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.shardscan.core.task.TaskDefinition;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A row id from what a caller gave: whole numbers and their digits, nothing a double may have rounded. */
class RowIdsTests {

    final TaskDefinition task = TaskDefinition.builder("orders")
            .table("tb_order")
            .idColumn("order_id")
            .build();

    @Test
    void takesWholeNumbersAndTheirDigitsExactlyAbove2To53() {
        assertThat(RowIds.parse(task, "9007199254740993")).isEqualTo(9_007_199_254_740_993L);
        assertThat(RowIds.parse(task, 9_007_199_254_740_993L)).isEqualTo(9_007_199_254_740_993L);
        assertThat(RowIds.parse(task, "-7")).isEqualTo(-7L);
        assertThat(RowIds.parse(task, String.valueOf(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
        assertThat(RowIds.parse(task, 7)).isEqualTo(7L);
        assertThat(RowIds.parse(task, new BigInteger("9007199254740993"))).isEqualTo(9_007_199_254_740_993L);
        assertThat(RowIds.parse(task, new BigDecimal("7.0"))).isEqualTo(7L);
        assertThat(RowIds.parse(task, 7.0)).isEqualTo(7L);
        assertThat(RowIds.parse(task, List.of("3", 4L))).containsExactly(3L, 4L);
    }

    @Test
    void refusesWhatIsNotAWholeNumberOfALongOrMayBeRoundedNamingItAndTheIdColumn() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RowIds.parse(task, "abc"))
                .withMessageStartingWith("Row id 'abc' is not an id of task orders: its ids are the whole numbers of"
                        + " column order_id, -9223372036854775808 to 9223372036854775807");
        for (Object notAnId : Arrays.asList(
                "9223372036854775808",
                "",
                " 7",
                "+7",
                "7.5",
                "٣", // an Arabic-Indic digit, which Long.parseLong would take
                new BigInteger("9223372036854775808"),
                new BigDecimal("7.5"),
                7.5,
                9_007_199_254_740_992.0, // 2^53: a double that may be 2^53 + 1 rounded
                true,
                null)) {
            assertThatIllegalArgumentException()
                    .as("%s", notAnId)
                    .isThrownBy(() -> RowIds.parse(task, notAnId))
                    .withMessageContaining("is not an id of task orders");
        }
    }
}
