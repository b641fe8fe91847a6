package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RowTests {

    private final Row.Layout layout = new Row.Layout(List.of("id", "phone", "last_error", "updated_at"));

    @Test
    void aPageRowReadsLikeAMapOfItsNonNullColumns() {
        Row row = layout.row(7, 3, 0, new Object[] {7L, "+1555", null, "2026-01-01"});
        assertThat(row.columns())
                .hasSize(3)
                .containsEntry("phone", "+1555")
                .doesNotContainKey("last_error")
                .doesNotContainKey("missing")
                .isEqualTo(Map.of("id", 7L, "phone", "+1555", "updated_at", "2026-01-01"));
        assertThat(row.columns().keySet()).containsExactly("id", "phone", "updated_at");
        assertThat(row).isEqualTo(new Row(7, 3, 0, Map.of("id", 7L, "phone", "+1555", "updated_at", "2026-01-01")));
    }

    @Test
    void aDeferredValueIsDecodedEachTimeItIsRead() {
        AtomicInteger decoded = new AtomicInteger();
        Row row = layout.row(
                1, 1, 0, new Object[] {1L, null, null, (Row.Deferred) () -> "at-" + decoded.incrementAndGet()});
        assertThat(decoded).hasValue(0);
        assertThat(row.columns().get("updated_at")).isEqualTo("at-1");
        assertThat(row.columns().entrySet()).extracting(Map.Entry::getValue).containsExactly(1L, "at-2");
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
