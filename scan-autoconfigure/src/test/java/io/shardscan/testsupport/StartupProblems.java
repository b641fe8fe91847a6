package io.shardscan.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.InvalidTaskException;
import java.util.List;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

/** What Shardscan's startup checks refused in a context that failed to start. */
public final class StartupProblems {

    private StartupProblems() {}

    /**
     * The problems of the {@link InvalidTaskException} among the context's startup failure and its
     * causes; fails the test when the context started or failed for another reason.
     */
    public static List<String> of(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
            if (t instanceof InvalidTaskException invalid) {
                return invalid.problems();
            }
        }
        throw new AssertionError("no InvalidTaskException in " + context.getStartupFailure());
    }
}
