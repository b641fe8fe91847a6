package io.shardscan.core.task;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Shards and identities of text and UUID shard keys. A text key's shard is the first four bytes of
 * the MD5 of its UTF-8 text, read as an unsigned big-endian number, modulo the shard count: the
 * databases compute the same in SQL ({@code md5} on PostgreSQL and MySQL, {@code HASH('MD5', ...)}
 * on H2), so a wake-up names the shard the fetch reads. A UUID's text is its canonical lower-case
 * form, as all three print it. Within the engine a text key is told apart from another by the first
 * eight bytes of the same MD5 (per-key order and held keys compare those): two keys of one shard
 * that share them would be ordered as one key, once in about 2^64 pairs.
 */
public final class TextKeys {

    private TextKeys() {}

    /** Whether {@code key} is a text or UUID key rather than a whole number. */
    public static boolean isText(@Nullable Object key) {
        return key instanceof CharSequence || key instanceof UUID;
    }

    /** The logical shard of a text or UUID key among {@code shards}. */
    public static int shardOf(Object key, int shards) {
        byte[] md5 = md5(key);
        long hash = ((md5[0] & 0xFFL) << 24) | ((md5[1] & 0xFFL) << 16) | ((md5[2] & 0xFFL) << 8) | (md5[3] & 0xFFL);
        return (int) (hash % shards);
    }

    /** The number the engine tells a text or UUID key apart by (see the class comment). */
    public static long identity(Object key) {
        byte[] md5 = md5(key);
        long identity = 0;
        for (int i = 0; i < 8; i++) {
            identity = (identity << 8) | (md5[i] & 0xFFL);
        }
        return identity;
    }

    private static byte[] md5(Object key) {
        try {
            return MessageDigest.getInstance("MD5").digest(key.toString().getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has MD5", e);
        }
    }
}
