package io.shardscan.core.task;

import java.util.List;

/**
 * A task's configuration, or the tables it runs on, cannot work; each problem names the property
 * or the table and the fix. One exception carries every problem found, so a user fixes them all
 * in one go.
 */
public class InvalidTaskException extends IllegalStateException {

    private final List<String> problems;

    public InvalidTaskException(String message) {
        super(message);
        this.problems = List.of(message);
    }

    /**
     * One exception for several problems.
     *
     * @param problems at least one, each a sentence naming the property or table and the fix
     */
    public InvalidTaskException(List<String> problems) {
        super(message(problems));
        this.problems = List.copyOf(problems);
    }

    /** Every problem found, in the order found; never empty. */
    public List<String> problems() {
        return problems;
    }

    private static String message(List<String> problems) {
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("no problems");
        }
        return problems.size() == 1
                ? problems.get(0)
                : problems.size() + " scan task problems:\n - " + String.join("\n - ", problems);
    }
}
