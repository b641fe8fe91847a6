package io.shardscan.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class whose promise is a latency measured in wall time (a row runs within its tier's interval of
 * being due): Surefire runs it with the chaos tests, after the others and one class at a time, so that the
 * latency it measures is the engine's and not that of three other test JVMs sharing the cores.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag(LatencyTests.TAG)
public @interface LatencyTests {

    String TAG = "latency";
}
