package io.breakerctl.cli.output;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.control.replay.ReplayFrame;
import io.breakerctl.runtime.control.replay.ReplayState;
import io.breakerctl.runtime.control.replay.RestoreItem;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import java.util.List;
import java.util.Map;

/** The machine views and tables of {@code replay} and {@code replay restore}. */
public final class ReplayViews {
  private ReplayViews() {}

  /**
   * A breaker's replayed state: {@code id} and {@code state} as {@code status} shows them, plus
   * what history knows of the window and override then.
   */
  @JsonPropertyOrder({
    "id",
    "state",
    "stored",
    "openUntil",
    "override",
    "overrideUntil",
    "epoch",
    "lastTransition"
  })
  public record BreakerAt(
      String id,
      String state,
      @JsonInclude(JsonInclude.Include.NON_NULL) String stored,
      @JsonInclude(JsonInclude.Include.NON_NULL) String openUntil,
      @JsonInclude(JsonInclude.Include.NON_NULL) String override,
      @JsonInclude(JsonInclude.Include.NON_NULL) String overrideUntil,
      @JsonInclude(JsonInclude.Include.NON_NULL) String epoch,
      @JsonInclude(JsonInclude.Include.NON_NULL) Transition lastTransition) {}

  /** A transition's identity and time. */
  @JsonPropertyOrder({"breakerId", "epoch", "streamId", "at"})
  public record Transition(
      String breakerId,
      String epoch,
      String streamId,
      @JsonInclude(JsonInclude.Include.NON_NULL) String at) {}

  /**
   * The fleet at an instant ({@code kind: BreakerList}, with {@code at}; a frame also names the
   * transition it follows).
   */
  @JsonPropertyOrder({"at", "transition", "items"})
  public record FleetAt(
      String at,
      @JsonInclude(JsonInclude.Include.NON_NULL) Transition transition,
      List<BreakerAt> items) {}

  /** One breaker of a restore plan or report ({@code kind: RestorePlan} items). */
  @JsonPropertyOrder({
    "id",
    "action",
    "state",
    "stored",
    "openUntil",
    "override",
    "overrideRemainingMillis",
    "policyId",
    "policyVersion",
    "source",
    "epoch",
    "detail",
    "readBack"
  })
  public record RestoreView(
      String id,
      String action,
      String state,
      String stored,
      @JsonInclude(JsonInclude.Include.NON_NULL) String openUntil,
      @JsonInclude(JsonInclude.Include.NON_NULL) String override,
      long overrideRemainingMillis,
      String policyId,
      long policyVersion,
      Transition source,
      String epoch,
      String detail,
      @JsonInclude(JsonInclude.Include.NON_NULL) String readBack) {}

  /** A restore's plan or report. */
  @JsonPropertyOrder({"dryRun", "correlationId", "fromDeployment", "intoDeployment", "items"})
  public record RestorePlanView(
      boolean dryRun,
      String correlationId,
      String fromDeployment,
      String intoDeployment,
      List<RestoreView> items) {}

  /** The view of one breaker at the replayed instant. */
  public static BreakerAt of(ReplayState s) {
    return new BreakerAt(
        s.id().toString(),
        s.state().code(),
        s.stored().code(),
        time(s.openUntilMillis()),
        s.override().map(State::code).orElse(null),
        s.override().isPresent() ? time(s.overrideUntilMillis()) : null,
        s.epoch(),
        s.last().map(t -> transition(t, s.lastAtMillis())).orElse(null));
  }

  /** The view of a replay frame: the fleet at its instant. */
  public static FleetAt frame(ReplayFrame f) {
    List<BreakerAt> items =
        f.fleet().entrySet().stream()
            .sorted(Map.Entry.comparingByKey((a, b) -> a.toString().compareTo(b.toString())))
            .map(e -> small(e.getKey(), e.getValue()))
            .toList();
    return new FleetAt(
        Style.rfc3339(f.at().toEpochMilli()),
        transition(f.transition(), f.at().toEpochMilli()),
        items);
  }

  private static BreakerAt small(BreakerId id, State s) {
    return new BreakerAt(id.toString(), s.code(), null, null, null, null, null, null);
  }

  /** The view of one item of a restore plan. */
  public static RestoreView of(RestoreItem i) {
    return new RestoreView(
        i.id().toString(),
        i.action().name(),
        i.state().code(),
        i.stored().code(),
        time(i.openUntilMillis()),
        i.override().map(State::code).orElse(null),
        i.overrideRemainingMillis(),
        i.policyId(),
        i.policyVersion(),
        transition(i.source(), 0),
        i.epoch(),
        i.detail(),
        i.readBack().map(Enum::name).orElse(null));
  }

  private static Transition transition(TransitionRef t, long atMillis) {
    return new Transition(t.breakerId().toString(), t.epoch(), t.streamId(), time(atMillis));
  }

  private static String time(long millis) {
    return millis > 0 ? Style.rfc3339(millis) : null;
  }

  /** The table of a fleet at an instant. */
  public static Table fleet(List<BreakerAt> items) {
    if (items.stream().allMatch(b -> b.stored() == null)) {
      Table t = new Table("ID", "STATE").stateColumn(1); // a frame knows the states only
      items.forEach(b -> t.row(State.fromCode(b.state()), b.id(), b.state()));
      return t;
    }
    Table t = new Table("ID", "STATE", "STORED", "OPEN-UNTIL", "OVERRIDE", "OVERRIDE-UNTIL");
    t.stateColumn(1);
    for (BreakerAt b : items) {
      t.row(
          State.fromCode(b.state()),
          b.id(),
          b.state(),
          dash(b.stored()),
          dash(b.openUntil()),
          dash(b.override()),
          dash(b.overrideUntil()));
    }
    return t;
  }

  /** The table of a restore plan. */
  public static Table restore(List<RestoreView> items) {
    Table t =
        new Table("ID", "ACTION", "STATE", "OVERRIDE", "REMAINING", "POLICY", "DETAIL").flexible(6);
    t.stateColumn(2);
    for (RestoreView r : items) {
      t.row(
          State.fromCode(r.state()),
          r.id(),
          r.action(),
          r.state(),
          dash(r.override()),
          r.overrideRemainingMillis() > 0 ? Style.age(r.overrideRemainingMillis()) : "-",
          r.policyId().isEmpty() ? "-" : r.policyId() + " v" + r.policyVersion(),
          r.detail().isEmpty() ? "-" : r.detail());
    }
    return t;
  }

  private static String dash(String s) {
    return s == null ? "-" : s;
  }
}
