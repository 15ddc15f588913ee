package io.breakerctl.cli.output;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.breakerctl.runtime.control.timeline.TimelineEntry;
import io.breakerctl.runtime.control.timeline.TimelineKind;
import io.breakerctl.runtime.model.State;
import java.util.Map;
import java.util.TreeMap;

/** The machine view and the table of timeline entries ({@code history}). */
public final class TimelineViews {
  private TimelineViews() {}

  /**
   * One timeline entry ({@code kind: TimelineEntryList} items; one a line with {@code -o jsonl}).
   *
   * @param kind TRANSITION, AUDIT, POLICY_VERSION, NOTE or GAP
   * @param id the entry's identity ({@code breakerId|epoch|streamId} for a transition)
   * @param target the breaker id (the policy id for a policy version)
   * @param at when (RFC 3339 UTC; Redis time for transitions)
   * @param from the state before (transitions), else null
   * @param to the state after (transitions), else null
   * @param cause the transition's cause or the audit action
   * @param counts the cause's counts and thresholds
   * @param source MONGODB or REDIS (not yet forwarded)
   */
  @JsonPropertyOrder({
    "kind",
    "id",
    "target",
    "at",
    "epoch",
    "streamId",
    "from",
    "to",
    "cause",
    "counts",
    "policyId",
    "policyVersion",
    "node",
    "lease",
    "actor",
    "reason",
    "correlationId",
    "source"
  })
  public record EntryView(
      String kind,
      String id,
      String target,
      String at,
      String epoch,
      String streamId,
      @JsonInclude(JsonInclude.Include.NON_NULL) String from,
      @JsonInclude(JsonInclude.Include.NON_NULL) String to,
      String cause,
      Map<String, String> counts,
      String policyId,
      long policyVersion,
      String node,
      String lease,
      String actor,
      String reason,
      String correlationId,
      String source) {}

  /** The view of one timeline entry. */
  public static EntryView of(TimelineEntry e) {
    return new EntryView(
        e.kind().name(),
        e.id(),
        e.target(),
        Style.rfc3339(e.at().toEpochMilli()),
        e.epoch(),
        e.streamId(),
        e.from().map(State::code).orElse(null),
        e.to().map(State::code).orElse(null),
        e.cause(),
        new TreeMap<>(e.counts()),
        e.policyId(),
        e.policyVersion(),
        e.node(),
        e.lease(),
        e.actor(),
        e.reason(),
        e.correlationId(),
        e.source().name());
  }

  /** The table's columns. */
  public static Table table() {
    return new Table("TIME", "KIND", "TARGET", "CHANGE", "CAUSE", "NODE", "ACTOR", "REASON")
        .stateColumn(3)
        .flexible(4, 7);
  }

  /** Adds one entry to the table. */
  public static void row(Table t, TimelineEntry e, Style style, long now) {
    String change =
        switch (e.kind()) {
          case TRANSITION ->
              e.from().map(State::code).orElse("-") + " -> " + e.to().map(State::code).orElse("-");
          case POLICY_VERSION -> "v" + e.policyVersion();
          case GAP -> e.counts().getOrDefault("dropped", "?") + " dropped";
          case NOTE -> "note";
          case AUDIT -> e.cause();
        };
    String cause = e.kind() == TimelineKind.AUDIT ? "" : e.cause(); // the action is the change
    if (e.kind() == TimelineKind.TRANSITION && !e.counts().isEmpty()) {
      cause = cause + " " + new TreeMap<>(e.counts());
    }
    t.row(
        e.to().orElse(null),
        style.time(e.at().toEpochMilli(), now),
        e.kind().name(),
        e.target(),
        change,
        cause.isEmpty() ? "-" : cause,
        e.node().isEmpty() ? "-" : e.node(),
        e.actor().isEmpty() ? "-" : e.actor(),
        e.reason().isEmpty() ? "-" : e.reason());
  }
}
