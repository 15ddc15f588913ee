/**
 * The Lua scripts' Java face: {@link io.breakerctl.runtime.redis.RedisFleetStore} on Lettuce,
 * standalone or Cluster, the adapter of the store port ({@code io.breakerctl.runtime.store}): it
 * turns the scripts' positional replies into the port's answers ({@code ScriptAnswers}) and
 * Lettuce's exceptions into the port's {@code StoreException} kinds ({@code StoreErrors}), so no
 * future it returns fails with a Lettuce type. Every state change is one script under {@code
 * src/main/resources/io/breakerctl/lua/} (the header of each explains its contract; {@code
 * prelude.lua} holds the shared state function, event writer and expiry rules), called by SHA with
 * an {@code EVAL} fallback on {@code NOSCRIPT}. Reads need no script. The key layout is {@link
 * io.breakerctl.runtime.redis.BreakerKeys}; src/docs/protocol.md documents it for {@code redis-cli}
 * users.
 *
 * <p>Performance decisions (measured with {@code scripts/bench scripts}; figures in
 * src/docs/performance.md and {@code prelude.lua}): every {@code redis.call} costs 1-1.5 µs of
 * Redis CPU and the prelude's definitions about 2.5 µs, so the common cases run ahead of the
 * prelude: acquire's closed path (one {@code HMGET}) and record's CLOSED count (TIME, one {@code
 * HMGET} of 14 fields, one {@code HSET}); {@code RecordFastPathIT} holds the latter to the full
 * path. On the client, every key and argument costs an encoding: the caller's policy travels as one
 * argument of eleven values, the fast paths answer with short replies, and {@link
 * io.breakerctl.runtime.redis.RedisFleetStore#acquire} sends the lean form (the hash key alone, no
 * arguments) while it last saw the breaker CLOSED. The full path loads the hash with one {@code
 * HGETALL} (cheaper than an {@code HMGET} of 34 names in a listpack) and keeps the window as
 * maintained totals, touching old buckets only when the bucket number moves.
 *
 * <p>Connection failures name their cause. A URI is parsed once ({@code RedisURI.create}) after its
 * user info was checked ({@link io.breakerctl.runtime.connection.ConnectionUris#userInfoProblem}:
 * Lettuce would read part of a raw {@code / ? #} password as the host), and every message that
 * quotes a URI goes through {@link io.breakerctl.runtime.connection.Redaction}. A TLS connection
 * that fails is a {@link io.breakerctl.runtime.store.StoreTlsException} naming a {@link
 * io.breakerctl.runtime.store.TlsFailure} (an untrusted certificate, a hostname mismatch, an
 * expired certificate, a plain server), never "unable to connect": the JDK's and Netty's exceptions
 * among the causes decide, and a handshake that got no answer (Redis 6.2 waits silently on a TLS
 * hello) is told from a hung server by a plain {@code PING} that a plain Redis answers. The CA file
 * is read before connecting, so a missing or certificate-less file is an {@code
 * IllegalArgumentException} naming it, not a failed connection.
 */
package io.breakerctl.runtime.redis;
