package io.shardscan.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A test class that talks to a real PostgreSQL, MariaDB or Redis server ({@link TestServers}). The
 * fast loop ({@code mvn test -Pfast}) leaves it out, and there {@link TestServers} refuses to start a
 * server, so a class that needs one and lacks this tag fails instead of slowing the loop down.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag(ServerTests.TAG)
public @interface ServerTests {

    String TAG = "servers";
}
