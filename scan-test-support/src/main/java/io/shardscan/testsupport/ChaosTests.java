package io.shardscan.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that starts node JVMs of its own ({@code NodeProcesses} in scan-autoconfigure's
 * tests) and kills, freezes or cuts them off. Surefire runs these classes after the others, one at a
 * time, so that no other test's load stretches the pauses they measure; the fast loop leaves them out.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag(ChaosTests.TAG)
public @interface ChaosTests {

    String TAG = "chaos";
}
