package io.shardscan.autoconfigure;

import io.shardscan.core.task.InvalidTaskException;
import java.sql.DatabaseMetaData;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * What every Redis key of this application's tasks starts with, inside its hash tag
 * ({@code scan:{namespace/task}:...}): {@code scan.redis.namespace} when set (empty for the keys
 * without one, {@code scan:{task}:...}), else the application's name and its database's URL. Two
 * applications on two databases that share one Redis and a task name were one cluster: each node
 * held half of the 16 shards, so half of each database's rows were never run, with health UP. With the
 * database in the namespace they are two clusters; nodes of one application reach their database by
 * the same URL, or set the same {@code scan.redis.namespace}.
 */
final class ScanRedisNamespace {

    private ScanRedisNamespace() {}

    static String resolve(@Nullable String configured, @Nullable String applicationName, DataSource dataSource) {
        if (configured != null) {
            return checked(configured.trim(), "scan.redis.namespace");
        }
        String application = applicationName == null || applicationName.isBlank() ? "application" : applicationName;
        return checked(application.trim() + "@" + databaseOf(dataSource), "spring.application.name");
    }

    /**
     * The database's URL as the driver reports it, without {@code jdbc:}, credentials and parameters:
     * {@code postgresql://db.internal:5432/orders}.
     */
    static String databaseOf(DataSource dataSource) {
        String url;
        try {
            url = JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getURL);
        } catch (MetaDataAccessException e) {
            throw new InvalidTaskException("cannot read the database's URL, which names Shardscan's Redis keys apart"
                    + " from those of applications on other databases (" + e.getMostSpecificCause() + "): start"
                    + " the database first, or set scan.redis.namespace to the same value on every node");
        }
        return identity(url);
    }

    static String identity(String url) {
        String identity = url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url;
        int parameters = indexOfAny(identity, '?', ';');
        if (parameters >= 0) {
            identity = identity.substring(0, parameters);
        }
        // credentials in the authority (//user:password@host)
        identity = identity.replaceFirst("//[^/@]*@", "//");
        return identity.replace('{', '_').replace('}', '_');
    }

    private static int indexOfAny(String text, char first, char second) {
        int a = text.indexOf(first);
        int b = text.indexOf(second);
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }

    private static String checked(String namespace, String property) {
        if (namespace.indexOf('{') >= 0 || namespace.indexOf('}') >= 0) {
            throw new InvalidTaskException("the Redis namespace '" + namespace + "' (from " + property + ") contains"
                    + " '{' or '}', which would end its keys' hash tag: set scan.redis.namespace without them");
        }
        return namespace;
    }
}
