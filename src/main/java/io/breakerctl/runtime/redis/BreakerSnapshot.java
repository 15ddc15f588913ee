package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.EffectiveState;
import io.breakerctl.runtime.model.State;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything stored about one breaker, read without a script (HGETALL, ZRANGE, XREVRANGE and TIME
 * on the breaker's node), so a read-only ACL user can take it.
 *
 * @param id the breaker
 * @param fields the state hash as stored (empty when the breaker has no keys)
 * @param leases live and not yet removed probe leases
 * @param recentEvents the newest events, newest first
 * @param nodes the heartbeats of the nodes using the breaker, oldest first
 * @param redisTimeMillis Redis time when read
 */
public record BreakerSnapshot(
    BreakerId id,
    Map<String, String> fields,
    List<ProbeLease> leases,
    List<BreakerEvent> recentEvents,
    List<NodeHeartbeat> nodes,
    long redisTimeMillis) {

  /** Whether the breaker's keys exist. */
  public boolean exists() {
    return !fields.isEmpty();
  }

  /** The stored machine state (CLOSED when absent). */
  public State storedState() {
    return State.fromCode(fields.getOrDefault("state", "CLOSED"));
  }

  /** The override as stored, live or expired. */
  public Optional<State> override() {
    String o = fields.get("override");
    return o == null || o.isEmpty() ? Optional.empty() : Optional.of(State.fromCode(o));
  }

  /** The state in force at the time of the read (the shared {@link EffectiveState} function). */
  public State effectiveState() {
    return effectiveStateAt(redisTimeMillis);
  }

  /** The state in force at another Redis time, e.g. for replay. */
  public State effectiveStateAt(long nowMillis) {
    return EffectiveState.of(
        storedState(),
        number("openUntil"),
        override().orElse(null),
        number("overrideUntil"),
        nowMillis);
  }

  /** Leases whose expiry is still ahead at the time of the read. */
  public List<ProbeLease> liveLeases() {
    return leases.stream().filter(l -> l.expiresAtMillis() > redisTimeMillis).toList();
  }

  /** A numeric field, 0 when absent. */
  public long number(String field) {
    String v = fields.get(field);
    return v == null || v.isEmpty() ? 0 : Long.parseLong(v);
  }

  /** The keys' incarnation. */
  public String epoch() {
    return fields.getOrDefault("epoch", "");
  }

  /** The warmed policy, if any. */
  public Optional<PolicyEncoding.WarmedPolicy> warmedPolicy() {
    return PolicyEncoding.fromFields(fields);
  }
}
