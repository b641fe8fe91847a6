package io.shardscan.core;

/** A task's configuration cannot work; the message names the property and the fix. */
public class InvalidTaskException extends IllegalStateException {

    public InvalidTaskException(String message) {
        super(message);
    }
}
