package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How a range task's progress line writes durations. */
class RangeStatusTests {

    @Test
    void durationsReadAsAPersonWritesThem() {
        assertThat(RangeStatus.human(Duration.ofSeconds(42))).isEqualTo("42s");
        assertThat(RangeStatus.human(Duration.ofSeconds(200))).isEqualTo("3m 20s");
        assertThat(RangeStatus.human(Duration.ofMinutes(3))).isEqualTo("3m");
        assertThat(RangeStatus.human(Duration.ofMinutes(65).plusSeconds(9))).isEqualTo("1h 5m");
        assertThat(RangeStatus.human(Duration.ofHours(51))).isEqualTo("2d 3h");
        assertThat(RangeStatus.human(Duration.ofMillis(400))).isEqualTo("0s");
    }
}
