package io.breakerctl.runtime.lockstep;

import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.WarmResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One breaker under test with what its caller remembers: the leases it was granted (in order: a
 * lease's handle is its grant number, the same on every side whatever id the side gave it) and the
 * generation of its last answer. Runs one {@link Op} at a time and renders the answer as named
 * values. Keys starting with {@code ~} are compared between the Java sides only (lease ids: the
 * scripts take a caller's name where the machine numbers every lease).
 */
final class Side {
  static final String NODE = "n1";
  static final String OTHER = "n2";

  private record Grant(String id, String owner, String generation) {}

  private final Breaker breaker;
  private final Policy policy;
  private final List<Grant> grants = new ArrayList<>();
  private String generation = "0";

  Side(Breaker breaker, Policy policy) {
    this.breaker = breaker;
    this.policy = policy;
  }

  Breaker breaker() {
    return breaker;
  }

  /** Runs {@code op}, the {@code index}-th of its sequence; null for a wait (no script runs). */
  Map<String, String> apply(Op op, int index) {
    Map<String, String> a = new LinkedHashMap<>();
    if (op instanceof Op.Wait) {
      return null;
    } else if (op instanceof Op.Fail f) {
      record(a, new Outcome(NODE, f.n(), 0, -1, gen(f.gen()), ""));
    } else if (op instanceof Op.Succeed s) {
      record(a, new Outcome(NODE, 0, s.n(), -1, gen(s.gen()), ""));
    } else if (op instanceof Op.Call c) {
      record(a, new Outcome(NODE, 0, 1, c.millis(), gen(c.gen()), ""));
    } else if (op instanceof Op.Acquire q) {
      String name = q.named() ? "m" + index : "";
      AcquireResult r = breaker.acquire(q.owner(), name);
      a.put("op", "acquire");
      a.put("allowed", Boolean.toString(r.allowed()));
      a.put("state", r.state().code());
      a.put("reason", r.reason().code());
      a.put("gen", r.generation());
      a.put("until", Long.toString(r.untilMillis()));
      if (r.leaseId().isEmpty()) {
        a.put("lease", "none");
      } else {
        // a named grant carries the caller's name on the scripts (the Java sides number it)
        boolean asAsked = name.isEmpty() || !breaker.namesLeases() || name.equals(r.leaseId());
        a.put("lease", asAsked ? "granted" : "granted as " + r.leaseId() + ", asked " + name);
        grants.add(new Grant(r.leaseId(), q.owner(), r.generation()));
      }
      a.put("~leaseId", r.leaseId());
      generation = r.generation();
    } else if (op instanceof Op.Probe p) {
      Grant g = grant(p.back());
      String owner = p.otherOwner() ^ g.owner().equals(OTHER) ? OTHER : NODE;
      String gen = p.leaseGen() ? g.generation() : gen(p.gen());
      Outcome o =
          switch (p.result()) {
            case OK -> new Outcome(owner, 0, 1, -1, gen, g.id());
            case FAIL -> new Outcome(owner, 1, 0, -1, gen, g.id());
            case SLOW -> new Outcome(owner, 0, 1, 40, gen, g.id());
          };
      record(a, o);
    } else if (op instanceof Op.Renew n) {
      Grant g = grant(n.back());
      String owner = n.otherOwner() ^ g.owner().equals(OTHER) ? OTHER : NODE;
      RenewResult r = breaker.renew(owner, g.id(), n.leaseGen() ? g.generation() : generation);
      a.put("op", "renew");
      a.put("state", r.state().code());
      a.put("reason", r.outcome().code());
      a.put("gen", r.generation());
      a.put("until", Long.toString(r.untilMillis()));
      a.put("renewals", Long.toString(r.renewals()));
      generation = r.generation();
    } else if (op instanceof Op.Release r) {
      Grant g = grant(r.back());
      String owner = r.otherOwner() ^ g.owner().equals(OTHER) ? OTHER : NODE;
      record(a, Outcome.release(owner, g.id()));
    } else if (op instanceof Op.Force f) {
      override(a, OverrideKind.valueOf(f.kind().name()), f.millis());
    } else if (op instanceof Op.Clear) {
      override(a, OverrideKind.CLEAR, 0);
    } else if (op instanceof Op.Warm w) {
      WarmResult r = breaker.warm(w.policyId(), w.version(), Ops.variant(policy, w.variant()));
      a.put("op", "warm");
      a.put("written", Boolean.toString(r.written()));
      a.put("outcome", r.outcome().code());
      a.put("policyId", r.policyId());
      a.put("version", Long.toString(r.policyVersion()));
    } else {
      throw new IllegalArgumentException("unknown op " + op);
    }
    return a;
  }

  /** The lease handle of a lease id this side was granted ({@code ?id} for one it never was). */
  String handleOf(String leaseId) {
    for (int i = 0; i < grants.size(); i++) {
      if (grants.get(i).id().equals(leaseId)) {
        return "h" + i;
      }
    }
    return "?" + leaseId;
  }

  private Grant grant(int back) {
    if (grants.isEmpty()) {
      return new Grant("nobodys", NODE, generation);
    }
    return grants.get(Math.max(0, grants.size() - 1 - back % grants.size()));
  }

  private String gen(Op.Gen g) {
    return switch (g) {
      case UNKNOWN -> "";
      case CURRENT -> generation;
      case PREVIOUS -> Long.toString(Math.max(0, Long.parseLong(generation) - 1));
    };
  }

  private void record(Map<String, String> a, Outcome o) {
    RecordResult r = breaker.record(o);
    a.put("op", "record");
    a.put("state", r.state().code());
    a.put("reason", r.reason().code());
    a.put("accepted", Boolean.toString(r.accepted()));
    a.put("transitioned", Boolean.toString(r.transitioned()));
    a.put("window", r.windowFailures() + "/" + r.windowCalls());
    a.put("gen", r.generation());
    a.put("openUntil", Long.toString(r.openUntilMillis()));
    generation = r.generation();
  }

  private void override(Map<String, String> a, OverrideKind kind, int millis) {
    OverrideResult r =
        breaker.override(
            new OverrideRequest(kind, "op", "lockstep", Duration.ofMillis(millis), "c1"));
    a.put("op", "override");
    a.put("changed", Boolean.toString(r.changed()));
    a.put("state", r.state().code());
    a.put("outcome", r.outcome().code());
    a.put("previous", r.previous().code());
    a.put("gen", r.generation());
    a.put("until", Long.toString(r.untilMillis()));
    generation = r.generation();
  }
}
