/**
 * Redis adapter: the lease and membership coordinator as Lua scripts on keys hash-tagged per task,
 * so that it also runs on Redis Cluster.
 */
@NullMarked
package io.shardscan.redis;

import org.jspecify.annotations.NullMarked;
