package io.breakerctl.testing.scenario;

import io.breakerctl.runtime.model.Policy;
import java.util.List;

/**
 * One implementation of the breaker the scenario table runs against: the Java machine or the Lua
 * scripts on a Redis server. Each call performs one operation at the side's current time.
 */
public interface ScenarioSide {

  /**
   * What one operation answered.
   *
   * @param state the effective state the operation answers
   * @param reason the acquire reason, record reason, renew, override or warm outcome (null for a
   *     check)
   * @param window "failures/calls" of a record, else null
   * @param generation the generation after
   * @param leaseId an acquire's lease id ("" for none), else null
   * @param untilMillis an acquire's or a renewal's untilMillis (absolute, 0 for none), else null
   */
  record Answer(
      String state,
      String reason,
      String window,
      String generation,
      String leaseId,
      Long untilMillis) {}

  /**
   * One event a step appended.
   *
   * @param text "FROM>TO CAUSE"
   * @param openMillis the open window an event into OPEN started, else null
   */
  record Event(String text, Long openMillis) {}

  /** Records outcomes; {@code generation} "" for unknown, {@code leaseId} "" for none. */
  Answer record(
      String node,
      long failures,
      long successes,
      long durationMillis,
      String generation,
      String leaseId);

  /** Renews the lease {@code leaseId} granted to {@code node} in {@code generation}. */
  Answer renew(String node, String generation, String leaseId);

  /** Asks for permission as {@code node}. */
  Answer acquire(String node);

  /** Sets an override (kind a State code) for {@code forMillis} (0 until cleared), or CLEAR. */
  Answer override(String kind, long forMillis);

  /** Warms a policy version. */
  Answer warm(String policyId, long version, Policy policy);

  /** Reads the effective state. */
  Answer check();

  /** Events appended since the last call, oldest first. */
  List<Event> drainEvents();

  /** "failures/successes" ever recorded. */
  String totals();
}
