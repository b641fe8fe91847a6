package io.shardscan.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;

class TestTimeTests {

    @Test
    void theFactorDefaultsToOneAndRefusesWhatWouldShortenTheBudget() {
        assertThat(TestTime.factor(null)).isEqualTo(1);
        assertThat(TestTime.factor(" ")).isEqualTo(1);
        assertThat(TestTime.factor("2.5")).isEqualTo(2.5);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TestTime.factor("0.5"))
                .withMessageContaining("SCAN_TEST_TIME_FACTOR must be a number of at least 1");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> TestTime.factor("fast"))
                .withMessageContaining("not 'fast'");
    }

    @Test
    void everyTestClassWaitsWithTheBudgetByDefault() throws Exception {
        // registered for the suite through META-INF/services: Awaitility's own default is 10 s
        ConditionFactory factory = Awaitility.await();
        var timeout = ConditionFactory.class.getDeclaredField("timeoutConstraint");
        timeout.setAccessible(true);
        Object constraint = timeout.get(factory);
        Duration max =
                (Duration) constraint.getClass().getMethod("getMaxWaitTime").invoke(constraint);
        assertThat(max).isEqualTo(TestTime.BUDGET).isEqualTo(TestTime.scaled(Duration.ofSeconds(30)));
    }
}
