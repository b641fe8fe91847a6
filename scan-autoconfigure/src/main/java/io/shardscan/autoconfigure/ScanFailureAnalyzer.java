package io.shardscan.autoconfigure;

import io.shardscan.core.task.InvalidTaskException;
import java.util.List;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Prints Shardscan's startup problems in Boot's "APPLICATION FAILED TO START" form: every problem
 * in the description, what to do in the action, and no stack trace. Registered in
 * {@code META-INF/spring.factories}.
 */
class ScanFailureAnalyzer extends AbstractFailureAnalyzer<InvalidTaskException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidTaskException cause) {
        List<String> problems = cause.problems();
        String description = problems.size() == 1
                ? "Shardscan cannot start:\n\n - " + problems.get(0)
                : "Shardscan cannot start; " + problems.size() + " problems:\n\n - " + String.join("\n - ", problems);
        String action = "Fix " + (problems.size() == 1 ? "the problem" : "each problem")
                + " above as it says: correct the scan.* property it names, or the table or column in the"
                + " database (Shardscan's own tables come from scan.jdbc.initialize-schema=always,"
                + " scan.jdbc.flyway.enabled=true or the scripts in io/shardscan/db/migration/<database>)."
                + " Then start the application again.";
        return new FailureAnalysis(description, action, cause);
    }
}
