/**
 * The Lua scripts' Java face: {@link io.breakerctl.runtime.redis.RedisBreakerStore} on Lettuce,
 * standalone or Cluster. Every state change is one script under {@code
 * src/main/resources/io/breakerctl/lua/} (the header of each explains its contract; {@code
 * prelude.lua} holds the shared state function, event writer and expiry rules), called by SHA with
 * an {@code EVAL} fallback on {@code NOSCRIPT}. Reads need no script. The key layout is {@link
 * io.breakerctl.runtime.redis.BreakerKeys}; the README documents it for {@code redis-cli} users.
 *
 * <p>Performance decisions (measured with {@code scripts/bench scripts}): the hash is loaded with
 * one {@code HGETALL} (cheaper than an {@code HMGET} of 34 names in a listpack), the caller's
 * policy travels as ten positional arguments (parsing a CSV cost about 4 µs), the window keeps
 * maintained totals and touches old buckets only when the bucket number moves, and the closed
 * acquire path is one {@code HMGET} before the prelude's definitions.
 */
package io.breakerctl.runtime.redis;
