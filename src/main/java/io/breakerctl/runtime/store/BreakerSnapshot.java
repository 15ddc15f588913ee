package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BackoffHint;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.EffectiveState;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Everything stored about one breaker, read without a script (HGETALL, ZRANGE, XREVRANGE and TIME
 * on the breaker's node), so a read-only ACL user can take it.
 *
 * @param id the breaker
 * @param fields the state hash as stored (empty when the breaker has no keys); outside the store a
 *     reader takes the typed accessors, never a field by name (ArchitectureTest), and the hash as a
 *     whole only to show it as stored
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

  /**
   * The stored machine state (CLOSED when absent).
   *
   * @throws MalformedBreakerException when the field holds no stored state
   */
  public State storedState() {
    String s = fields.getOrDefault("state", "CLOSED");
    if (!STORED_STATES.contains(s)) {
      throw new MalformedBreakerException("breaker " + id + ": " + problem().orElseThrow(), null);
    }
    return State.valueOf(s);
  }

  /**
   * The override as stored, live or expired.
   *
   * @throws MalformedBreakerException when the field holds no override state
   */
  public Optional<State> override() {
    String o = fields.get("override");
    if (o == null || o.isEmpty()) {
      return Optional.empty();
    }
    if (!OVERRIDES.contains(o)) {
      throw new MalformedBreakerException("breaker " + id + ": " + problem().orElseThrow(), null);
    }
    return Optional.of(State.valueOf(o));
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

  /**
   * Where the breaker's history goes and what holds its keys, at the time of the read.
   *
   * @throws MalformedBreakerException when a field it reads is not a number
   */
  public BreakerHistory history() {
    return BreakerHistory.of(this);
  }

  /** Leases whose expiry is still ahead at the time of the read. */
  public List<ProbeLease> liveLeases() {
    return leases.stream().filter(l -> l.expiresAtMillis() > redisTimeMillis).toList();
  }

  /**
   * A numeric field, 0 when absent.
   *
   * @throws MalformedBreakerException when the field holds something else than an integer
   */
  public long number(String field) {
    String v = fields.get(field);
    if (v == null || v.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new MalformedBreakerException("breaker " + id + ": " + notANumber(field, v), e);
    }
  }

  /**
   * What makes this snapshot unreadable, if anything: the first field (in a fixed order) whose
   * value no script writes, e.g. {@code field openUntil is not a number: 'notanumber'}. A snapshot
   * with a problem answers {@link #effectiveState()} and {@link #number} with a {@link
   * MalformedBreakerException}; readers show it as invalid instead.
   */
  public Optional<String> problem() {
    String state = fields.get("state");
    if (state != null && !STORED_STATES.contains(state)) {
      return Optional.of("field state is not CLOSED, OPEN or HALF_OPEN: " + quote(state));
    }
    String o = fields.get("override");
    if (o != null && !o.isEmpty() && !OVERRIDES.contains(o)) {
      return Optional.of(
          "field override is not FORCED_OPEN, FORCED_CLOSED, DISABLED or METRICS_ONLY: "
              + quote(o));
    }
    for (String f : NUMBERS) {
      String v = fields.get(f);
      if (v != null && !v.isEmpty() && !isInteger(v)) {
        return Optional.of(notANumber(f, v));
      }
    }
    try {
      warmedPolicy();
    } catch (RuntimeException e) {
      return Optional.of("the warmed policy (policyVersion, p.*) is malformed: " + e.getMessage());
    }
    return Optional.empty();
  }

  private static final List<String> STORED_STATES = List.of("CLOSED", "OPEN", "HALF_OPEN");
  private static final List<String> OVERRIDES =
      List.of("FORCED_OPEN", "FORCED_CLOSED", "DISABLED", "METRICS_ONLY");
  private static final List<String> NUMBERS =
      List.of(
          "openUntil",
          "overrideUntil",
          "openedAt",
          "openMillis",
          "overrideAt",
          "generation",
          "winFailures",
          "winCalls",
          "failuresTotal",
          "successesTotal",
          "eventsDropped",
          "policyVersion",
          "streamLength",
          "unfwdSince",
          "unfwdCount",
          "historyHold",
          "eventsExpired",
          "expiredAt",
          "lastTransitionAt",
          "hintMillis",
          "hintUntil");

  /** {@code -?\d{1,19}} without a regex: this runs for a dozen fields of every breaker read. */
  private static boolean isInteger(String v) {
    int start = v.charAt(0) == '-' ? 1 : 0;
    int digits = v.length() - start;
    if (digits < 1 || digits > 19) {
      return false;
    }
    for (int i = start; i < v.length(); i++) {
      char ch = v.charAt(i);
      if (ch < '0' || ch > '9') {
        return false;
      }
    }
    return true;
  }

  private static String notANumber(String field, String value) {
    return "field " + field + " is not a number: " + quote(value);
  }

  private static String quote(String value) {
    return "'" + (value.length() > 64 ? value.substring(0, 64) + "..." : value) + "'";
  }

  /**
   * The override with who set it, why and until when, as stored (live or expired; see {@link
   * #override()}).
   *
   * @param state FORCED_OPEN, FORCED_CLOSED, DISABLED or METRICS_ONLY
   * @param actor who set it
   * @param reason why
   * @param atMillis Redis time it was set
   * @param untilMillis Redis time it ends; 0 until cleared
   * @param correlationId links it to its audit record; may be empty
   */
  public record OverrideDetail(
      State state,
      String actor,
      String reason,
      long atMillis,
      long untilMillis,
      String correlationId) {}

  /**
   * The override's details, when one is stored.
   *
   * @throws MalformedBreakerException when a field it reads is malformed
   */
  public Optional<OverrideDetail> overrideDetail() {
    return override()
        .map(
            o ->
                new OverrideDetail(
                    o,
                    fields.getOrDefault("overrideActor", ""),
                    fields.getOrDefault("overrideReason", ""),
                    number("overrideAt"),
                    number("overrideUntil"),
                    fields.getOrDefault("overrideCorrelationId", "")));
  }

  /**
   * The failure window's counts at the time of the read.
   *
   * @param failures failures counted in the window
   * @param calls calls counted in the window
   */
  public record Window(long failures, long calls) {}

  /** The failure window ({@code winFailures}, {@code winCalls}). */
  public Window window() {
    return new Window(number("winFailures"), number("winCalls"));
  }

  /**
   * The last open window: when it opened, until when it lasts and how long it was (each 0 when the
   * breaker never opened).
   */
  public record OpenWindow(long openedAtMillis, long untilMillis, long millis) {}

  /**
   * The dependency's back-off hint that set the open window, while the end it set is ahead of the
   * time of the read ({@code hintMillis}, {@code hintSource}, {@code hintUntil}); empty otherwise.
   */
  public Optional<BackoffHint.InForce> backoffHint() {
    long until = number("hintUntil");
    BackoffHint.Source source = BackoffHint.Source.byName(fields.get("hintSource"));
    long asked = number("hintMillis");
    if (until <= redisTimeMillis || source == null || asked < 1) {
      return Optional.empty();
    }
    return Optional.of(
        new BackoffHint.InForce(
            new BackoffHint(Math.min(asked, BackoffHint.MAX.toMillis()), source), until));
  }

  /** The last open window ({@code openedAt}, {@code openUntil}, {@code openMillis}). */
  public OpenWindow openWindow() {
    return new OpenWindow(number("openedAt"), number("openUntil"), number("openMillis"));
  }

  /** Failures recorded over the keys' life ({@code failuresTotal}). */
  public long failuresTotal() {
    return number("failuresTotal");
  }

  /**
   * Successes recorded over the keys' life ({@code successesTotal}); slow calls count as failures.
   */
  public long successesTotal() {
    return number("successesTotal");
  }

  /** How many transitions the breaker made ({@code generation}): each one bumps it. */
  public long generation() {
    return number("generation");
  }

  /** Events dropped from the stream before the history forwarder stored them. */
  public long eventsDropped() {
    return number("eventsDropped");
  }

  /** Events given up unforwarded when their history hold ended ({@code eventsExpired}). */
  public long eventsExpired() {
    return number("eventsExpired");
  }

  /** The policy the nodes last reported running (their defaults, as a JSON document), if any. */
  public Optional<String> nodePolicy() {
    return Optional.ofNullable(fields.get("nodePolicy"));
  }

  /** The marker of the policy last taken out of the breaker ({@code unwarmed}), if any. */
  public Optional<String> unwarmed() {
    return Optional.ofNullable(fields.get("unwarmed"));
  }

  /** The keys' incarnation. */
  public String epoch() {
    return fields.getOrDefault("epoch", "");
  }

  /** The warmed policy, if any. */
  public Optional<PolicyEncoding.WarmedPolicy> warmedPolicy() {
    return PolicyEncoding.fromFields(fields);
  }

  /**
   * The registry defaults the nodes run with while no policy is warmed ({@link
   * PolicyEncoding#nodeDefaults}), if any node recorded them.
   */
  public Optional<Policy> nodeDefaults() {
    return PolicyEncoding.nodeDefaults(fields);
  }

  /**
   * The warmed policy's version as the hash stores it (the part of the breaker's stamp {@link
   * BreakerStore#stamp} reads), empty when none is warmed; not checked to be a number ({@link
   * #warmedPolicy()} reads it).
   */
  public String policyVersionText() {
    return fields.getOrDefault("policyVersion", "");
  }

  /**
   * The stored state as the hash holds it, empty when absent: for showing an unreadable breaker as
   * it is ({@link #problem()}); {@link #storedState()} reads it.
   */
  public String storedStateText() {
    return fields.getOrDefault("state", "");
  }

  /**
   * Whether the hash holds an override field at all, readable or not ({@link #override()} reads
   * it): the scripts delete it when an override ends.
   */
  public boolean hasOverrideField() {
    return fields.containsKey("override");
  }

  /** The stream id of the breaker's newest event ({@code lastEvent}), if it has any. */
  public Optional<String> lastEvent() {
    return Optional.ofNullable(fields.get("lastEvent"));
  }

  /**
   * The stream id up to which the history forwarder stored the breaker's events ({@code
   * forwarded}), if it stored any.
   */
  public Optional<String> forwarded() {
    return Optional.ofNullable(fields.get("forwarded"));
  }

  /**
   * The history entry the keys were restored from ({@code restoredFrom}: {@code
   * <epoch>|<streamId>}), if they were.
   */
  public Optional<String> restoredFrom() {
    return Optional.ofNullable(fields.get("restoredFrom"));
  }

  /**
   * Redis time, ms, of the keys' last transition ({@code lastTransitionAt}), if recorded.
   *
   * @throws MalformedBreakerException when the field holds something else than an integer
   */
  public OptionalLong lastTransitionAt() {
    String v = fields.get("lastTransitionAt");
    return v == null || v.isEmpty()
        ? OptionalLong.empty()
        : OptionalLong.of(number("lastTransitionAt"));
  }

  /**
   * What the grant of a live lease recorded (renew.lua, prelude: {@code <grantedAt>:<renewals>} in
   * the field {@code lease.<leaseId>|<owner>}).
   *
   * @param grantedAtMillis Redis time it was granted
   * @param renewals how many times it was renewed
   */
  public record LeaseGrant(long grantedAtMillis, long renewals) {}

  /** The grant record of {@code lease}, when the hash holds a readable one. */
  public Optional<LeaseGrant> grantOf(ProbeLease lease) {
    String info = fields.getOrDefault("lease." + lease.leaseId() + "|" + lease.owner(), "");
    java.util.regex.Matcher m = LEASE_GRANT.matcher(info);
    return m.matches()
        ? Optional.of(new LeaseGrant(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))))
        : Optional.empty();
  }

  private static final java.util.regex.Pattern LEASE_GRANT =
      java.util.regex.Pattern.compile("(\\d+):(\\d+)");
}
