package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.model.Transitions;
import io.breakerctl.runtime.store.BreakerEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks one breaker's history after concurrent clients drove it: its whole event stream, its final
 * state hash and the clients' logs of what they sent and saw ({@link HistoryOp}). Pure Java: {@link
 * HistoryCheckerTest} feeds it hand-made histories, {@code HistoryCheckIT} real ones.
 *
 * <p>The breaker must have started fresh (first event generation 1, from CLOSED) and its stream
 * must be untrimmed (under the scripts' hard cap, no forwarder). An operation the client saw no
 * answer to is unknown: it may have run, once, at any later time; the checks hold whichever
 * happened. What is checked, as the scripts promise it:
 *
 * <ul>
 *   <li>the stream: every event a legal transition ({@link Transitions#isLegal}), its {@code from}
 *       the previous event's {@code to}, generations increasing by exactly one (an event never
 *       lost, as every generation change appends one), one epoch;
 *   <li>the hash: its generation, last event id, and stored state or override are the last event's,
 *       no event dropped;
 *   <li>leases: granted only in a generation that began HALF_OPEN, under the id asked for, never
 *       twice; and never more than {@code halfOpenPermits} probes holding a slot at once, a probe
 *       still running holding its slot for as long as its node's acknowledged renewals extended it
 *       (renew.lua). The script's promise (acquire.lua) is "live leases plus probes already
 *       succeeded below halfOpenPermits" at each grant, not "halfOpenPermits grants per
 *       generation": an expired or released lease's slot is granted again in the same generation.
 *       So at each acknowledged grant at Redis time t (untilMillis - probeLease), the leases of its
 *       generation that certainly held a slot at t (granted at or before t, and unexpired at t
 *       unless released; or with an accepted success, which holds its slot for the rest of the
 *       generation) may number at most halfOpenPermits;
 *   <li>outcomes: each lease's outcome (or release) accepted at most once; a lease named by at most
 *       one event, and only a lease some client asked for; an accepted probe failure reopens (its
 *       PROBE_FAILED event names the lease), an accepted result past maxProbeSeconds reopens as
 *       PROBE_TIMED_OUT; a renewal answered PROBE_TIMED_OUT made that transition from its lease's
 *       generation, and RENEWED only within it; a close counts halfOpenPermits successes;
 *   <li>answers: every transition an answer reported (record {@code transitioned}, override {@code
 *       changed}) is in the stream with that generation and claimed by one answer only; answered
 *       generations exist; one epoch;
 *   <li>totals: {@code failuresTotal} and {@code successesTotal} lie between the sums of the
 *       acknowledged outcomes and acknowledged plus unknown (nothing lost, nothing counted twice).
 * </ul>
 */
final class HistoryChecker {

  private static final int MAX_REPORTED = 25;

  private final int permits;
  private final long leaseMillis;

  /** A checker for a breaker whose policy has these {@code halfOpenPermits} and probe lease. */
  HistoryChecker(int permits, Duration probeLease) {
    this.permits = permits;
    this.leaseMillis = probeLease.toMillis();
  }

  /**
   * What the check found.
   *
   * @param violations one line each; empty when the history is correct
   * @param grants acknowledged probe leases
   * @param trips events CLOSED -> OPEN
   * @param summary counts, for the test's output
   */
  record Verdict(List<String> violations, int grants, int trips, String summary) {

    /** The summary and the first violations, for an assertion message. */
    String report() {
      StringBuilder b = new StringBuilder(summary);
      int n = 0;
      for (String v : violations) {
        if (n++ == MAX_REPORTED) {
          b.append("\n  ... and ").append(violations.size() - MAX_REPORTED).append(" more");
          break;
        }
        b.append("\n  ").append(v);
      }
      return b.toString();
    }
  }

  /** Checks {@code events} (the whole stream, oldest first), the final hash and the client logs. */
  Verdict check(List<BreakerEvent> events, Map<String, String> hash, List<HistoryOp> ops) {
    List<String> v = new ArrayList<>();
    String epoch = hash.getOrDefault("epoch", "");
    Map<String, BreakerEvent> byId = new HashMap<>();
    Map<Long, BreakerEvent> byGeneration = new HashMap<>();
    long lastGen = checkStream(events, epoch, byId, byGeneration, v);
    checkHash(events, hash, lastGen, v);

    List<HistoryOp.AcquireOp> acquires = new ArrayList<>();
    List<HistoryOp.RecordOp> records = new ArrayList<>();
    List<HistoryOp.OverrideOp> overrides = new ArrayList<>();
    Map<String, List<HistoryOp.RenewOp>> renewals = new HashMap<>();
    for (HistoryOp op : ops) {
      if (op instanceof HistoryOp.AcquireOp a) {
        acquires.add(a);
      } else if (op instanceof HistoryOp.RecordOp r) {
        records.add(r);
      } else if (op instanceof HistoryOp.RenewOp n) {
        renewals.computeIfAbsent(n.lease(), k -> new ArrayList<>()).add(n);
      } else if (op instanceof HistoryOp.OverrideOp o) {
        overrides.add(o);
      }
    }
    Map<String, HistoryOp.AcquireOp> grants =
        checkGrants(acquires, byGeneration, epoch, lastGen, v);
    Map<String, List<HistoryOp.RecordOp>> byLease = new HashMap<>();
    for (HistoryOp.RecordOp r : records) {
      if (!r.lease().isEmpty()) {
        byLease.computeIfAbsent(r.lease(), k -> new ArrayList<>()).add(r);
      }
    }
    checkOccupancy(grants, byLease, renewals, v);
    checkOutcomes(events, acquires, byLease, byId, v);
    checkRenewals(renewals, byGeneration, epoch, lastGen, v);
    checkAnswers(records, overrides, byId, epoch, lastGen, v);
    String totals = checkTotals(records, hash, v);

    Map<TransitionCause, Integer> causes = new EnumMap<>(TransitionCause.class);
    int trips = 0;
    for (BreakerEvent e : events) {
      try {
        causes.merge(e.cause(), 1, Integer::sum);
        if (e.from() == State.CLOSED && e.to() == State.OPEN) {
          trips++;
        }
      } catch (RuntimeException unreadable) {
        // reported by checkStream
      }
    }
    Map<String, Long> perGeneration = new HashMap<>();
    for (HistoryOp.AcquireOp a : grants.values()) {
      perGeneration.merge(a.generation(), 1L, Long::sum);
    }
    String summary =
        String.format(
            "history: %d events %s; acquires %d (%d unknown), %d leases granted in %d"
                + " generations (%d generations granted more than halfOpenPermits=%d, slots"
                + " freed by expiry or release); records %d (%d unknown); renewals %s;"
                + " overrides %d (%d unknown); %s; %d violations",
            events.size(),
            causes,
            acquires.size(),
            acquires.stream().filter(a -> !a.acked()).count(),
            grants.size(),
            perGeneration.size(),
            perGeneration.values().stream().filter(n -> n > permits).count(),
            permits,
            records.size(),
            records.stream().filter(r -> !r.acked()).count(),
            renewals.values().stream()
                .flatMap(List::stream)
                .collect(
                    java.util.stream.Collectors.groupingBy(
                        n -> n.acked() ? n.outcome() : "unknown",
                        java.util.TreeMap::new,
                        java.util.stream.Collectors.counting())),
            overrides.size(),
            overrides.stream().filter(o -> !o.acked()).count(),
            totals,
            v.size());
    return new Verdict(List.copyOf(v), grants.size(), trips, summary);
  }

  /** The stream's own rules; returns the last event's generation (0 when none). */
  private static long checkStream(
      List<BreakerEvent> events,
      String epoch,
      Map<String, BreakerEvent> byId,
      Map<Long, BreakerEvent> byGeneration,
      List<String> v) {
    long prevGen = 0;
    State prevTo = State.CLOSED;
    String prevId = "(the fresh breaker)";
    for (BreakerEvent e : events) {
      byId.put(e.streamId(), e);
      State from;
      State to;
      TransitionCause cause;
      long gen;
      try {
        from = e.from();
        to = e.to();
        cause = e.cause();
        gen = Long.parseLong(e.field("generation"));
      } catch (RuntimeException bad) {
        v.add("event " + e.streamId() + " is unreadable (" + bad.getMessage() + "): " + e.fields());
        continue;
      }
      byGeneration.put(gen, e);
      if (!Transitions.isLegal(from, to, cause)) {
        v.add(
            "event "
                + e.streamId()
                + ": illegal transition "
                + from
                + " -> "
                + to
                + " ("
                + cause
                + ")");
      }
      if (!e.epoch().equals(epoch)) {
        v.add("event " + e.streamId() + ": epoch " + e.epoch() + " but the hash's is " + epoch);
      }
      if (from != prevTo) {
        v.add(
            "event "
                + e.streamId()
                + " (generation "
                + gen
                + "): from "
                + from
                + " but the previous event "
                + prevId
                + " went to "
                + prevTo);
      }
      if (gen <= prevGen) {
        v.add(
            "event "
                + e.streamId()
                + ": generation "
                + gen
                + " is not above the previous event's "
                + prevGen);
      } else if (gen != prevGen + 1) {
        v.add(
            "event "
                + e.streamId()
                + ": generation "
                + gen
                + " follows "
                + prevGen
                + ": "
                + (gen - prevGen - 1)
                + " transition event(s) missing");
      }
      prevGen = Math.max(prevGen, gen);
      prevTo = to;
      prevId = e.streamId();
    }
    return prevGen;
  }

  private static void checkHash(
      List<BreakerEvent> events, Map<String, String> hash, long lastGen, List<String> v) {
    long hashGen = number(hash, "generation");
    if (hashGen != lastGen) {
      v.add(
          "hash generation "
              + hashGen
              + " but the stream's last event has generation "
              + lastGen
              + " (a transition without its event, or an event without its transition)");
    }
    if (number(hash, "eventsDropped") != 0) {
      v.add("hash eventsDropped " + hash.get("eventsDropped") + ": the stream lost events");
    }
    if (events.isEmpty()) {
      return;
    }
    BreakerEvent last = events.get(events.size() - 1);
    if (!last.streamId().equals(hash.getOrDefault("lastEvent", ""))) {
      v.add(
          "hash lastEvent "
              + hash.get("lastEvent")
              + " but the stream's last event is "
              + last.streamId());
    }
    State to;
    try {
      to = last.to();
    } catch (RuntimeException unreadable) {
      return;
    }
    String override = hash.get("override");
    String state = hash.getOrDefault("state", "");
    if (to.isOverride()
        ? !to.name().equals(override)
        : override != null || !state.equals(to.name())) {
      v.add(
          "hash state "
              + state
              + " override "
              + override
              + " but the last event "
              + last.streamId()
              + " went to "
              + to);
    }
  }

  /** Checks every grant; returns the acknowledged grants by lease id. */
  private static Map<String, HistoryOp.AcquireOp> checkGrants(
      List<HistoryOp.AcquireOp> acquires,
      Map<Long, BreakerEvent> byGeneration,
      String epoch,
      long lastGen,
      List<String> v) {
    Map<String, HistoryOp.AcquireOp> grants = new HashMap<>();
    for (HistoryOp.AcquireOp a : acquires) {
      if (!a.acked()) {
        continue;
      }
      checkAnswered(
          a.client() + "'s acquire " + a.asked(), a.generation(), a.epoch(), epoch, lastGen, v);
      if (!a.granted()) {
        continue;
      }
      if (!a.lease().equals(a.asked())) {
        v.add(a.client() + " asked for lease " + a.asked() + " and was granted " + a.lease());
      }
      HistoryOp.AcquireOp before = grants.put(a.lease(), a);
      if (before != null) {
        v.add(
            "lease "
                + a.lease()
                + " granted twice: generations "
                + before.generation()
                + " and "
                + a.generation());
      }
      BreakerEvent began = byGeneration.get(parse(a.generation()));
      if (began == null || !began.field("to").equals(State.HALF_OPEN.name())) {
        v.add(
            "lease "
                + a.lease()
                + " granted in generation "
                + a.generation()
                + ", which did not begin HALF_OPEN (its event: "
                + (began == null ? "none" : began.streamId() + " to " + began.field("to"))
                + ")");
      }
    }
    return grants;
  }

  /** At each grant, at most halfOpenPermits leases of its generation certainly held a slot. */
  private void checkOccupancy(
      Map<String, HistoryOp.AcquireOp> grants,
      Map<String, List<HistoryOp.RecordOp>> byLease,
      Map<String, List<HistoryOp.RenewOp>> renewals,
      List<String> v) {
    Map<String, List<HistoryOp.AcquireOp>> byGen = new TreeMap<>();
    for (HistoryOp.AcquireOp a : grants.values()) {
      byGen.computeIfAbsent(a.generation(), k -> new ArrayList<>()).add(a);
    }
    for (Map.Entry<String, List<HistoryOp.AcquireOp>> g : byGen.entrySet()) {
      List<HistoryOp.AcquireOp> leases = g.getValue();
      leases.sort(Comparator.comparingLong(HistoryOp.AcquireOp::untilMillis));
      for (HistoryOp.AcquireOp grant : leases) {
        long t = grant.untilMillis() - leaseMillis;
        List<String> holders = new ArrayList<>();
        for (HistoryOp.AcquireOp other : leases) {
          if (other == grant) {
            continue;
          }
          long start = other.untilMillis() - leaseMillis;
          List<HistoryOp.RecordOp> sent = byLease.getOrDefault(other.lease(), List.of());
          boolean succeeded =
              sent.stream()
                  .anyMatch(
                      r -> r.acked() && r.accepted() && r.successes() > 0 && r.failures() == 0);
          boolean released =
              sent.stream().anyMatch(r -> r.release() && (!r.acked() || r.accepted()));
          // a probe still running keeps its slot: each acknowledged renewal made by t moved the
          // expiry (renew.lua); renewals nobody saw answered are not counted (not certain)
          long expiry = other.untilMillis();
          for (HistoryOp.RenewOp n : renewals.getOrDefault(other.lease(), List.of())) {
            if (n.renewed() && n.untilMillis() - leaseMillis <= t) {
              expiry = Math.max(expiry, n.untilMillis());
            }
          }
          if (start <= t && (succeeded || (!released && t < expiry))) {
            holders.add(
                other.lease()
                    + " (granted at "
                    + start
                    + ", expiring "
                    + expiry
                    + (succeeded ? ", succeeded" : "")
                    + ")");
          }
        }
        if (holders.size() + 1 > permits) {
          v.add(
              "generation "
                  + g.getKey()
                  + ": lease "
                  + grant.lease()
                  + " granted at "
                  + t
                  + " while "
                  + holders.size()
                  + " other lease(s) held a slot: "
                  + String.join(", ", holders)
                  + " (halfOpenPermits "
                  + permits
                  + ")");
        }
      }
    }
  }

  private void checkOutcomes(
      List<BreakerEvent> events,
      List<HistoryOp.AcquireOp> acquires,
      Map<String, List<HistoryOp.RecordOp>> byLease,
      Map<String, BreakerEvent> byId,
      List<String> v) {
    Map<String, Set<String>> successesByGen = new TreeMap<>();
    for (Map.Entry<String, List<HistoryOp.RecordOp>> l : byLease.entrySet()) {
      List<HistoryOp.RecordOp> accepted =
          l.getValue().stream().filter(r -> r.acked() && r.accepted()).toList();
      if (accepted.size() > 1) {
        v.add(
            "lease "
                + l.getKey()
                + ": accepted "
                + accepted.size()
                + " times ("
                + String.join(
                    ", ",
                    accepted.stream()
                        .map(r -> r.reason() + " f=" + r.failures() + " s=" + r.successes())
                        .toList())
                + ")");
      }
      for (HistoryOp.RecordOp r : accepted) {
        if (!r.probeOutcome()) {
          continue;
        }
        BreakerEvent timedOut = r.transitioned() ? byId.get(r.eventId()) : null;
        if (timedOut != null
            && timedOut.field("cause").equals(TransitionCause.PROBE_TIMED_OUT.name())) {
          // a result past maxProbeSeconds under its live lease: failed whatever it said
          if (!timedOut.field("lease").equals(l.getKey())) {
            v.add("lease " + l.getKey() + ": its timeout event names " + timedOut.field("lease"));
          }
        } else if (r.failures() > 0) {
          BreakerEvent e = byId.get(r.eventId());
          if (!r.transitioned()
              || e == null
              || !e.field("cause").equals(TransitionCause.PROBE_FAILED.name())
              || !e.field("lease").equals(l.getKey())) {
            v.add(
                "lease "
                    + l.getKey()
                    + ": its failed probe was accepted without a PROBE_FAILED event naming it"
                    + " (transitioned "
                    + r.transitioned()
                    + ", event "
                    + (e == null ? "none" : e.fields())
                    + ")");
          }
        } else {
          successesByGen.computeIfAbsent(r.sentGeneration(), k -> new HashSet<>()).add(l.getKey());
        }
      }
    }
    successesByGen.forEach(
        (gen, leases) -> {
          if (leases.size() > permits) {
            v.add(
                "generation "
                    + gen
                    + ": "
                    + leases.size()
                    + " probe successes accepted "
                    + leases
                    + " (halfOpenPermits "
                    + permits
                    + ")");
          }
        });

    Set<String> asked = new HashSet<>();
    for (HistoryOp.AcquireOp a : acquires) {
      asked.add(a.asked());
    }
    Map<String, String> namedBy = new HashMap<>();
    for (BreakerEvent e : events) {
      String lease = e.field("lease");
      if (lease.isEmpty()) {
        continue;
      }
      String before = namedBy.put(lease, e.streamId());
      if (before != null) {
        v.add(
            "lease "
                + lease
                + "'s outcome applied twice: events "
                + before
                + " and "
                + e.streamId());
      }
      if (!asked.contains(lease)) {
        v.add("event " + e.streamId() + " names lease " + lease + ", which no client asked for");
      }
      if (e.field("cause").equals(TransitionCause.PROBES_SUCCEEDED.name())
          && !e.field("successes").equals(Integer.toString(permits))) {
        v.add(
            "event "
                + e.streamId()
                + " closed after "
                + e.field("successes")
                + " probe successes (halfOpenPermits "
                + permits
                + ")");
      }
    }
  }

  /**
   * Renewals: an answered one names a generation that exists in this incarnation; one answered
   * PROBE_TIMED_OUT made the transition into that generation, a HALF_OPEN > OPEN PROBE_TIMED_OUT
   * naming its lease, from the generation the lease was granted in; RENEWED only in a generation
   * that began HALF_OPEN, the lease's own.
   */
  private static void checkRenewals(
      Map<String, List<HistoryOp.RenewOp>> renewals,
      Map<Long, BreakerEvent> byGeneration,
      String epoch,
      long lastGen,
      List<String> v) {
    for (List<HistoryOp.RenewOp> ns : renewals.values()) {
      for (HistoryOp.RenewOp n : ns) {
        if (!n.acked() || n.epoch().isEmpty()) {
          continue;
        }
        String what = n.client() + "'s renewal of " + n.lease() + " (" + n.outcome() + ")";
        checkAnswered(what, n.generation(), n.epoch(), epoch, lastGen, v);
        if (n.timedOut()) {
          BreakerEvent e = byGeneration.get(parse(n.generation()));
          if (e == null
              || !e.field("cause").equals(TransitionCause.PROBE_TIMED_OUT.name())
              || !e.field("lease").equals(n.lease())
              || parse(n.generation()) != parse(n.sentGeneration()) + 1) {
            v.add(what + ": no PROBE_TIMED_OUT event naming it at generation " + n.generation());
          }
        } else if (n.renewed() && !n.generation().equals(n.sentGeneration())) {
          v.add(what + ": renewed in generation " + n.generation() + ", not its own");
        }
      }
    }
  }

  private static void checkAnswers(
      List<HistoryOp.RecordOp> records,
      List<HistoryOp.OverrideOp> overrides,
      Map<String, BreakerEvent> byId,
      String epoch,
      long lastGen,
      List<String> v) {
    Map<String, String> claimed = new HashMap<>();
    for (HistoryOp.RecordOp r : records) {
      if (!r.acked()) {
        continue;
      }
      String what = r.client() + "'s record f=" + r.failures() + " s=" + r.successes();
      checkAnswered(what, r.generation(), r.epoch(), epoch, lastGen, v);
      if (r.transitioned()) {
        claim(what, r.eventId(), r.generation(), byId, claimed, v);
      }
    }
    for (HistoryOp.OverrideOp o : overrides) {
      if (!o.acked()) {
        continue;
      }
      String what = o.client() + "'s override " + o.kind();
      checkAnswered(what, o.generation(), o.epoch(), epoch, lastGen, v);
      if (o.changed()) {
        claim(what, o.eventId(), o.generation(), byId, claimed, v);
      }
    }
  }

  private static void checkAnswered(
      String what, String generation, String answered, String epoch, long lastGen, List<String> v) {
    if (!answered.isEmpty() && !answered.equals(epoch)) {
      v.add(what + " was answered in epoch " + answered + " but the breaker's is " + epoch);
    }
    if (parse(generation) > lastGen) {
      v.add(
          what
              + " was answered generation "
              + generation
              + ", beyond the stream's last "
              + lastGen);
    }
  }

  private static void claim(
      String what,
      String eventId,
      String generation,
      Map<String, BreakerEvent> byId,
      Map<String, String> claimed,
      List<String> v) {
    BreakerEvent e = byId.get(eventId);
    if (e == null) {
      v.add(
          what
              + " was answered with transition event "
              + eventId
              + " (generation "
              + generation
              + "), which the stream lacks");
      return;
    }
    if (!e.field("generation").equals(generation)) {
      v.add(
          what
              + " was answered with event "
              + eventId
              + " at generation "
              + generation
              + " but the event has generation "
              + e.field("generation"));
    }
    String before = claimed.put(eventId, what);
    if (before != null) {
      v.add("event " + eventId + " won by two callers: " + before + " and " + what);
    }
  }

  private static String checkTotals(
      List<HistoryOp.RecordOp> records, Map<String, String> hash, List<String> v) {
    long ackF = 0;
    long ackS = 0;
    long unkF = 0;
    long unkS = 0;
    for (HistoryOp.RecordOp r : records) {
      if (r.acked()) {
        ackF += r.failures();
        ackS += r.successes();
      } else {
        unkF += r.failures();
        unkS += r.successes();
      }
    }
    total(hash, "failuresTotal", ackF, unkF, v);
    total(hash, "successesTotal", ackS, unkS, v);
    return String.format(
        "failuresTotal %d (acked %d + unknown %d), successesTotal %d (acked %d + unknown %d)",
        number(hash, "failuresTotal"), ackF, unkF, number(hash, "successesTotal"), ackS, unkS);
  }

  private static void total(
      Map<String, String> hash, String field, long acked, long unknown, List<String> v) {
    long stored = number(hash, field);
    if (stored < acked) {
      v.add(
          field
              + " "
              + stored
              + " is below the "
              + acked
              + " the clients saw acknowledged: "
              + (acked - stored)
              + " lost");
    } else if (stored > acked + unknown) {
      v.add(
          field
              + " "
              + stored
              + " is above acknowledged "
              + acked
              + " + unknown "
              + unknown
              + ": "
              + (stored - acked - unknown)
              + " counted twice (or from nowhere)");
    }
  }

  private static long number(Map<String, String> hash, String field) {
    String s = hash.get(field);
    return s == null || s.isEmpty() ? 0 : Long.parseLong(s);
  }

  private static long parse(String generation) {
    try {
      return generation.isEmpty() ? 0 : Long.parseLong(generation);
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }
}
