package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.OverrideOutcome;
import io.breakerctl.runtime.model.ReassertOutcome;
import io.breakerctl.runtime.model.RecordOutcome;
import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.WarmOutcome;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.ForwardResult;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.ProbeLease;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.RestoreResult;
import io.breakerctl.runtime.store.RestoreStatus;
import io.breakerctl.runtime.store.WarmResult;
import java.util.List;

/**
 * Reads the positional replies of the Lua scripts into the store's answers: the reply layout is
 * this adapter's business, the answers ({@code io.breakerctl.runtime.store}) the runtime's.
 */
final class ScriptAnswers {
  private ScriptAnswers() {}

  static String str(List<Object> r, int i) {
    Object o = i < r.size() ? r.get(i) : null;
    return o == null ? "" : o.toString();
  }

  static long num(List<Object> r, int i) {
    Object o = i < r.size() ? r.get(i) : null;
    if (o instanceof Number n) {
      return n.longValue();
    }
    if (o == null || o.toString().isEmpty()) {
      return 0;
    }
    return Long.parseLong(o.toString());
  }

  static boolean flag(List<Object> r, int i) {
    return num(r, i) == 1;
  }

  static AcquireResult acquire(List<Object> r) {
    if (r.size() == 3) {
      // the closed fast path: {1, generation, epoch}
      return new AcquireResult(
          true, State.CLOSED, AdmissionReason.CLOSED, str(r, 1), "", 0, str(r, 2));
    }
    return new AcquireResult(
        flag(r, 0),
        State.fromCode(str(r, 1)),
        AdmissionReason.fromCode(str(r, 2)),
        str(r, 3),
        str(r, 4),
        num(r, 5),
        str(r, 6));
  }

  /** The lean form's answer for a breaker that is not closed: send the full form. */
  static boolean isLeanRefusal(List<Object> r) {
    return r.size() == 1 && num(r, 0) == -1;
  }

  static RecordResult record(List<Object> r) {
    if (r.size() == 4) {
      // the fast path: {windowFailures, windowCalls, generation, epoch}, counted in CLOSED
      return new RecordResult(
          State.CLOSED,
          num(r, 0),
          num(r, 1),
          false,
          str(r, 2),
          "",
          str(r, 3),
          true,
          RecordOutcome.COUNTED,
          0);
    }
    return new RecordResult(
        State.fromCode(str(r, 0)),
        num(r, 1),
        num(r, 2),
        flag(r, 3),
        str(r, 4),
        str(r, 5),
        str(r, 6),
        flag(r, 7),
        RecordOutcome.fromCode(str(r, 8)),
        num(r, 9));
  }

  static RenewResult renew(List<Object> r) {
    return new RenewResult(
        State.fromCode(str(r, 0)),
        RenewOutcome.fromCode(str(r, 1)),
        str(r, 2),
        num(r, 3),
        str(r, 4),
        num(r, 5));
  }

  static ReassertResult reassert(List<Object> r) {
    return new ReassertResult(
        flag(r, 0),
        ReassertOutcome.fromCode(str(r, 1)),
        State.fromCode(str(r, 2)),
        str(r, 3),
        str(r, 4));
  }

  static WarmResult warm(List<Object> r) {
    return new WarmResult(
        flag(r, 0), WarmOutcome.fromCode(str(r, 1)), str(r, 2), num(r, 3), str(r, 4));
  }

  static ForwardResult forwarded(List<Object> r) {
    return new ForwardResult(flag(r, 0), str(r, 1), str(r, 2), str(r, 3));
  }

  static OverrideResult override(List<Object> r) {
    return new OverrideResult(
        flag(r, 0),
        State.fromCode(str(r, 1)),
        OverrideOutcome.fromCode(str(r, 2)),
        str(r, 3),
        str(r, 4),
        str(r, 5),
        State.fromCode(str(r, 6)),
        num(r, 7));
  }

  static RestoreResult restore(List<Object> r) {
    return new RestoreResult(
        RestoreStatus.valueOf(str(r, 1)),
        State.fromCode(str(r, 2)),
        str(r, 3),
        str(r, 4),
        str(r, 5),
        str(r, 6));
  }

  static ProbeLease probeLease(String member, double score) {
    int bar = member.indexOf('|');
    return new ProbeLease(
        bar < 0 ? member : member.substring(0, bar),
        bar < 0 ? "" : member.substring(bar + 1),
        (long) score);
  }

  static String[] reassertArguments(Reassertion r) {
    return new String[] {
      r.mode().name(),
      r.kind().code(),
      r.seenEpoch(),
      Long.toString(r.seenGeneration()),
      Long.toString(r.untilMillis()),
      r.openMillis() > 0 ? Long.toString(r.openMillis()) : "",
      r.knownCause() == null ? "" : r.knownCause().name(),
      r.failures() < 0 ? "" : Long.toString(r.failures()),
      r.actor(),
      r.reason(),
      r.correlationId(),
      r.probesMayRun() ? "1" : ""
    };
  }
}
