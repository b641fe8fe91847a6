package io.shardscan.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.stream.DoubleStream;
import org.junit.jupiter.api.Test;

class ResultLineTests {

    @Test
    void writesKeyValuePairsAfterTheScenario() {
        String line = new ResultLine("throughput")
                .put("rows", 500_000)
                .put("ratio_vs_raw", 0.71234)
                .put("ratio", 2.0)
                .put("missing", Double.NaN)
                .put("xmx", "1g")
                .toString();
        assertThat(line).isEqualTo("RESULT throughput rows=500000 ratio_vs_raw=0.712 ratio=2 missing=nan xmx=1g");
        assertThat(line).matches(ResultLine.FORMAT);
    }

    @Test
    void parsesOptions() {
        Options options = Options.parse("throughput", "--rows", "1_000", "--nodes=3", "--embedded");
        assertThat(options.scenario()).isEqualTo("throughput");
        assertThat(options.intValue("rows", 5)).isEqualTo(1000);
        assertThat(options.intValue("nodes", 2)).isEqualTo(3);
        assertThat(options.intValue("workers", 8)).isEqualTo(8);
        assertThat(options.embedded()).isTrue();
        assertThat(options.pgUrl()).isEqualTo(Options.DEFAULT_PG_URL);
        assertThatIllegalArgumentException().isThrownBy(() -> Options.parse("throughput", "--bogus", "1"));
    }

    @Test
    void throughputRatesAreTheMedianOfTheWarmPasses() {
        assertThat(ThroughputScenario.median(DoubleStream.of(9, 1, 5))).isEqualTo(5);
        assertThat(ThroughputScenario.median(DoubleStream.of(4, 1, 9, 2))).isEqualTo(3);
    }
}
