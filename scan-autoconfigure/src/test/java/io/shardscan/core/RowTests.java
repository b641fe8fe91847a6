package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardscan.core.task.Row;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RowTests {

    private final Row.Layout layout = new Row.Layout(List.of("id", "phone", "last_error", "updated_at"));

    @Test
    void aPageRowReadsLikeAMapOfAllItsColumnsNullOnesIncluded() {
        Row row = layout.row(7, 3, 0, new Object[] {7L, "+1555", null, "2026-01-01"});
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("id", 7L);
        expected.put("phone", "+1555");
        expected.put("last_error", null);
        expected.put("updated_at", "2026-01-01");
        assertThat(row.columns())
                .hasSize(4)
                .containsEntry("phone", "+1555")
                .containsEntry("last_error", null)
                .doesNotContainKey("missing")
                .isEqualTo(expected);
        assertThat(row.columns().keySet()).containsExactly("id", "phone", "last_error", "updated_at");
        assertThat(row).isEqualTo(new Row(7, 3, 0, expected));
        assertThat(new Row(7, 3, 0, expected).columns()).containsEntry("last_error", null);
    }

    @Test
    void aDeferredValueIsDecodedEachTimeItIsRead() {
        AtomicInteger decoded = new AtomicInteger();
        Row row = layout.row(
                1, 1, 0, new Object[] {1L, null, null, (Row.Deferred) () -> "at-" + decoded.incrementAndGet()});
        assertThat(decoded).hasValue(0);
        assertThat(row.columns().get("updated_at")).isEqualTo("at-1");
        assertThat(row.columns().entrySet()).extracting(Map.Entry::getValue).containsExactly(1L, null, null, "at-2");
    }

    @Test
    void aPageRowCannotBeChanged() {
        Row row = layout.row(1, 1, 0, new Object[] {1L, "x", null, null});
        assertThatThrownBy(() -> row.columns().put("phone", "y")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> row.columns().entrySet().iterator().remove())
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aLayoutRejectsTwiceNamedColumnsAndValuesOfAnotherWidth() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Row.Layout(List.of("id", "id")))
                .withMessageContaining("occurs twice");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> layout.row(1, 1, 0, new Object[] {1L}))
                .withMessageContaining("1 values for 4 columns");
    }
}
