package io.shardscan.redis;

import io.shardscan.core.spi.WakeChannel;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Wake-ups over Redis pub/sub: one channel per task, hash-tagged as the task's keys
 * ({@code scan:{task}:wake}), each message the shard numbers comma-separated. Subscribes in the
 * background (a Redis that is down at startup does not fail the start), and the listener container
 * subscribes again by itself after Redis comes back; wake-ups published meanwhile are lost, and
 * polling picks their rows up. Thread-safe.
 */
public final class RedisWakeChannel implements WakeChannel {

    private static final System.Logger log = System.getLogger(RedisWakeChannel.class.getName());

    private static final Duration RETRY = Duration.ofSeconds(1);

    private final RedisConnectionFactory connectionFactory;
    private final StringRedisTemplate redis;
    private final String namespace;
    private volatile RedisMessageListenerContainer container;
    private volatile boolean open;

    /** A channel on {@code connectionFactory}, which must be started. */
    public RedisWakeChannel(RedisConnectionFactory connectionFactory) {
        this(connectionFactory, "");
    }

    /**
     * Wake-ups on the given connections; the factory must be started.
     *
     * @param namespace what the keys of every task start with, in their hash tag ({@code scan:{namespace/task}:});
     *     empty for {@code scan:{task}:}
     */
    public RedisWakeChannel(RedisConnectionFactory connectionFactory, String namespace) {
        this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
        this.redis = new StringRedisTemplate(connectionFactory);
        this.namespace = Objects.requireNonNull(namespace, "namespace");
    }

    @Override
    public void publish(String task, Collection<Integer> shards) {
        redis.convertAndSend(new TaskKeys(namespace, task).wake(), WakeChannel.encode(shards));
    }

    @Override
    public void open(Set<String> tasks, Receiver receiver) {
        RedisMessageListenerContainer listeners = new RedisMessageListenerContainer();
        listeners.setConnectionFactory(connectionFactory);
        listeners.setRecoveryInterval(RETRY.toMillis());
        for (String task : tasks) {
            listeners.addMessageListener(
                    (message, pattern) -> deliver(task, message.getBody(), receiver),
                    new ChannelTopic(new TaskKeys(namespace, task).wake()));
        }
        listeners.afterPropertiesSet();
        this.container = listeners;
        open = true;
        // a Redis that is down at startup must not fail the start: subscribe in the background until it answers
        Thread subscriber = new Thread(() -> subscribe(listeners), "scan-wake-subscribe");
        subscriber.setDaemon(true);
        subscriber.start();
    }

    private void subscribe(RedisMessageListenerContainer listeners) {
        boolean warned = false;
        while (open && !listeners.isRunning()) {
            try {
                listeners.start();
            } catch (RuntimeException e) {
                if (!warned) {
                    log.log(
                            Level.WARNING,
                            "Shardscan cannot subscribe to its wake-ups on " + RedisLocation.of(connectionFactory)
                                    + " ("
                                    + e.getMessage() + "); rows of"
                                    + " this node's shards wait for the next poll until it can, retrying every "
                                    + RETRY.toSeconds() + " s");
                    warned = true;
                }
                LockSupport.parkNanos(RETRY.toNanos());
            }
        }
    }

    private static void deliver(String task, byte[] body, Receiver receiver) {
        try {
            receiver.wake(task, WakeChannel.decode(new String(body, StandardCharsets.UTF_8)));
        } catch (RuntimeException e) {
            log.log(Level.WARNING, "Task " + task + ": ignored a wake-up that is not shard numbers: " + e);
        }
    }

    @Override
    public void close() {
        open = false;
        RedisMessageListenerContainer listeners = container;
        if (listeners != null) {
            try {
                listeners.destroy();
            } catch (Exception e) {
                log.log(Level.DEBUG, "Closing the wake-up subscription: " + e);
            }
        }
    }

    @Override
    public String description() {
        return "redis: pub/sub on scan:{<task>}:wake, so a wake-up reaches the owning node in a round trip";
    }
}
