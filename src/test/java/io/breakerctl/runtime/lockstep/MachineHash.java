package io.breakerctl.runtime.lockstep;

import io.breakerctl.runtime.local.ActiveOverride;
import io.breakerctl.runtime.local.LocalStateMachine;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.ProbeLease;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The fields that decide what a breaker does next, in one shape for both kinds of side: {@link
 * #of(LocalStateMachine, Function)} reads them out of a machine (its private fields, by reflection:
 * the machine publishes only what its readers need, and a test must not widen the runtime's API),
 * {@link #of(BreakerSnapshot, String, Function)} out of the script's hash and lease set. Absent
 * fields read as the script's defaults. Together they cover everything a later answer depends on
 * (stored state, open window and its length, override with expiry, generation, probe successes,
 * every lease with its expiry, the window's totals, newest bucket and ring, the totals, the policy
 * in force), so two sides whose fields agree answer every later sequence alike.
 */
final class MachineHash {
  private MachineHash() {}

  /** The fields of a machine; lease ids are mapped to handles by {@code handleOf}. */
  static Map<String, String> of(LocalStateMachine m, Function<String, String> handleOf) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("state", m.storedState().code());
    h.put("generation", Long.toString(m.generation()));
    h.put("openUntil", Long.toString(m.openUntilMillis()));
    h.put("openMillis", Long.toString(m.openMillis()));
    ActiveOverride o = read(m, "override");
    h.put("override", o == null ? "" : o.kind().code());
    h.put("overrideUntil", o == null ? "0" : Long.toString(o.untilMillis()));
    h.put("overrideAt", o == null ? "0" : Long.toString(o.setAtMillis()));
    h.put("halfOpenSuccesses", Long.toString(longField(m, "halfOpenSuccesses")));
    Object window = read(m, "window");
    h.put("winFailures", Long.toString(m.counts().windowFailures()));
    h.put("winCalls", Long.toString(m.counts().windowCalls()));
    h.put("curFailures", Long.toString(longField(window, "currentFailures")));
    h.put("curCalls", Long.toString(longField(window, "currentCalls")));
    boolean started = read(window, "started");
    h.put("winBucket", started ? Long.toString(longField(window, "bucket")) : "");
    long[] ringF = read(window, "ringFailures");
    long[] ringC = read(window, "ringCalls");
    List<String> ring = new ArrayList<>();
    for (int i = 0; i < ringC.length; i++) {
      if (ringC[i] != 0 || ringF[i] != 0) {
        ring.add("w" + i + "=" + ringF[i] + ":" + ringC[i]);
      }
    }
    h.put("ring", String.join(" ", ring));
    h.put("failuresTotal", Long.toString(m.counts().failuresTotal()));
    h.put("successesTotal", Long.toString(m.counts().successesTotal()));
    Object warmed = read(m, "warmed");
    String warmedId = read(warmed, "policyId");
    h.put("policyId", warmedId == null ? "" : warmedId);
    h.put("policyVersion", Long.toString(longField(warmed, "version")));
    h.put("policy", PolicyEncoding.toArg(m.policy()));
    Map<String, Record> held = read(read(m, "leases"), "leases");
    List<String> leases = new ArrayList<>();
    held.forEach(
        (member, l) -> {
          int bar = member.indexOf('|');
          long expiry = read(l, "expiry");
          long grantedAt = read(l, "grantedAt");
          long renewals = read(l, "renewals");
          leases.add(
              lease(handleOf, member.substring(0, bar), member.substring(bar + 1), expiry)
                  + " from "
                  + grantedAt
                  + ":"
                  + renewals);
        });
    Collections.sort(leases);
    h.put("leases", String.join(" ", leases));
    return h;
  }

  /**
   * The fields of the script's hash ({@code snapshot.fields()}) and lease set; {@code callers} is
   * the policy argument the calls pass (in force while none is warmed).
   */
  static Map<String, String> of(
      BreakerSnapshot s, String callers, Function<String, String> handleOf) {
    Map<String, String> f = s.fields();
    Map<String, String> h = new LinkedHashMap<>();
    h.put("state", f.getOrDefault("state", State.CLOSED.code()));
    h.put("generation", num(f, "generation"));
    h.put("openUntil", num(f, "openUntil"));
    h.put("openMillis", num(f, "openMillis"));
    String o = f.getOrDefault("override", "");
    h.put("override", o);
    h.put("overrideUntil", o.isEmpty() ? "0" : num(f, "overrideUntil"));
    h.put("overrideAt", o.isEmpty() ? "0" : num(f, "overrideAt"));
    h.put("halfOpenSuccesses", num(f, "halfOpenSuccesses"));
    h.put("winFailures", num(f, "winFailures"));
    h.put("winCalls", num(f, "winCalls"));
    h.put("curFailures", num(f, "curFailures"));
    h.put("curCalls", num(f, "curCalls"));
    h.put("winBucket", f.getOrDefault("winBucket", ""));
    List<String> ring = new ArrayList<>();
    for (int i = 0; i < Policy.WINDOW_BUCKETS; i++) {
      String v = f.get("w" + i);
      if (v != null) {
        ring.add("w" + i + "=" + v);
      }
    }
    h.put("ring", String.join(" ", ring));
    h.put("failuresTotal", num(f, "failuresTotal"));
    h.put("successesTotal", num(f, "successesTotal"));
    h.put("policyId", f.getOrDefault("policyId", ""));
    h.put("policyVersion", num(f, "policyVersion"));
    h.put("policy", s.warmedPolicy().map(w -> PolicyEncoding.toArg(w.policy())).orElse(callers));
    List<String> leases = new ArrayList<>();
    for (ProbeLease l : s.leases()) {
      // the lease's start and renewals (renew.lua), in the hash beside the lease set
      String info = f.getOrDefault("lease." + l.leaseId() + "|" + l.owner(), "?");
      leases.add(lease(handleOf, l.leaseId(), l.owner(), l.expiresAtMillis()) + " from " + info);
    }
    Collections.sort(leases);
    h.put("leases", String.join(" ", leases));
    return h;
  }

  /**
   * What a reader of the store sees at {@code nowMillis}, from a store's snapshot fields (or from
   * {@link #of} fields): the override only while it is in force, as the in-process store shows it.
   */
  static Map<String, String> readerView(Map<String, String> f, long nowMillis) {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("state", f.getOrDefault("state", State.CLOSED.code()));
    for (String k :
        List.of(
            "generation",
            "openUntil",
            "openMillis",
            "winFailures",
            "winCalls",
            "failuresTotal",
            "successesTotal",
            "policyVersion")) {
      v.put(k, num(f, k));
    }
    v.put("policyId", f.getOrDefault("policyId", ""));
    String o = f.getOrDefault("override", "");
    long until = Long.parseLong(num(f, "overrideUntil"));
    boolean live = !o.isEmpty() && !(until > 0 && nowMillis >= until);
    v.put("override", live ? o : "");
    v.put("overrideUntil", live ? Long.toString(until) : "0");
    v.put("overrideAt", live ? num(f, "overrideAt") : "0");
    return v;
  }

  private static String lease(
      Function<String, String> handleOf, String id, String owner, long expiry) {
    return handleOf.apply(id) + "|" + owner + "@" + expiry;
  }

  private static String num(Map<String, String> f, String k) {
    String v = f.get(k);
    return v == null || v.isEmpty() ? "0" : v;
  }

  private static long longField(Object o, String field) {
    Object v = read(o, field);
    return ((Number) v).longValue();
  }

  @SuppressWarnings("unchecked")
  private static <T> T read(Object o, String field) {
    try {
      Field f = o.getClass().getDeclaredField(field);
      f.setAccessible(true);
      return (T) f.get(o);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "the lockstep tests read "
              + o.getClass().getSimpleName()
              + "."
              + field
              + " (the script's hash field it stands for); it was renamed or removed: update"
              + " MachineHash",
          e);
    }
  }
}
