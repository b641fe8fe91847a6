package io.shardscan.redis;

import io.shardscan.core.WakeChannel;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Wake-ups over Redis pub/sub: one channel per task, hash-tagged as the task's keys
 * ({@code scan:{task}:wake}), each message the shard numbers comma-separated. The listener container
 * subscribes again by itself after Redis comes back; wake-ups published meanwhile are lost, and
 * polling picks their rows up. Thread-safe.
 */
public final class RedisWakeChannel implements WakeChannel {

    private static final System.Logger log = System.getLogger(RedisWakeChannel.class.getName());

    private final RedisConnectionFactory connectionFactory;
    private final StringRedisTemplate redis;
    private volatile RedisMessageListenerContainer container;

    /** A channel on {@code connectionFactory}, which must be started. */
    public RedisWakeChannel(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
        this.redis = new StringRedisTemplate(connectionFactory);
    }

    @Override
    public void publish(String task, Collection<Integer> shards) {
        redis.convertAndSend(new TaskKeys(task).wake(), WakeChannel.encode(shards));
    }

    @Override
    public void open(Set<String> tasks, Receiver receiver) {
        RedisMessageListenerContainer listeners = new RedisMessageListenerContainer();
        listeners.setConnectionFactory(connectionFactory);
        for (String task : tasks) {
            listeners.addMessageListener(
                    (message, pattern) -> deliver(task, message.getBody(), receiver),
                    new ChannelTopic(new TaskKeys(task).wake()));
        }
        listeners.afterPropertiesSet();
        listeners.start();
        this.container = listeners;
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
