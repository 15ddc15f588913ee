package io.breakerctl.runtime.control.replay;

import com.mongodb.client.model.Filters;
import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.control.timeline.StreamTail;
import io.breakerctl.runtime.control.timeline.TimelineEntries;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.bson.Document;

/**
 * Replays the fleet from its history: the state in force at an instant, and the fleet's state after
 * each transition of a range. History is MongoDB {@code history} plus, when a store is given, the
 * not yet forwarded tail of each Redis stream. The state at an instant goes through the same {@link
 * io.breakerctl.runtime.model.EffectiveState} function {@code status} uses, so an open window that
 * ended or an override that expired without a script running is computed, not guessed.
 */
public final class Replay {

  private final ControlDatabase db;
  private final FleetStore redis;
  private final Optional<String> deployment;

  /**
   * A replay.
   *
   * @param db the control plane (history)
   * @param redis the breakers' store for the unforwarded tail, or null for MongoDB alone
   */
  public Replay(ControlDatabase db, FleetStore redis) {
    this(db, redis, Optional.empty());
  }

  private Replay(ControlDatabase db, FleetStore redis, Optional<String> deployment) {
    this.db = db;
    this.redis = redis;
    this.deployment = deployment;
  }

  /**
   * The same replay of one deployment's history only ({@link
   * io.breakerctl.runtime.control.history.Deployments}): the documents it stored and those stored
   * before identities existed. Empty: every document.
   */
  public Replay of(Optional<String> deployment) {
    return new Replay(db, redis, deployment);
  }

  /**
   * Every selected breaker's state in force at {@code at}, by id. Breakers of which nothing is
   * known by then are absent.
   *
   * @throws io.breakerctl.runtime.control.ControlUnavailableException when MongoDB is down
   * @throws io.breakerctl.runtime.store.StoreException when the store is given and Redis fails
   */
  public Map<BreakerId, ReplayState> stateAt(Instant at, BreakerPattern pattern) {
    long t = at.toEpochMilli();
    Map<String, BreakerFold> folds = new HashMap<>();
    steps(
        pattern,
        s ->
            folds
                .computeIfAbsent(s.breakerId(), id -> new BreakerFold(BreakerId.parse(id), t))
                .offer(s));
    Map<BreakerId, ReplayState> out = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    for (BreakerFold f : folds.values()) {
      f.state(t).ifPresent(s -> out.put(s.id(), s));
    }
    return out;
  }

  /**
   * Calls {@code sink} with the fleet's state after each transition in ({@code from}, {@code to}],
   * in timeline order.
   *
   * @throws io.breakerctl.runtime.control.ControlUnavailableException when MongoDB is down
   */
  public void frames(Instant from, Instant to, BreakerPattern pattern, Consumer<ReplayFrame> sink) {
    if (!from.isBefore(to)) {
      throw new IllegalArgumentException(
          "replay from (" + from + ") must be before to (" + to + ")");
    }
    long start = from.toEpochMilli();
    long end = to.toEpochMilli();
    Map<String, BreakerFold> folds = new HashMap<>();
    List<ReplayStep> range = new ArrayList<>();
    steps(
        pattern,
        s -> {
          folds
              .computeIfAbsent(s.breakerId(), id -> new BreakerFold(BreakerId.parse(id), start))
              .offer(s);
          if (s.key().at() > start && s.key().at() <= end) {
            range.add(s);
          }
        });
    range.sort((a, b) -> a.key().compareTo(b.key()));
    for (ReplayStep s : range) {
      long t = s.key().at();
      BreakerFold fold = folds.get(s.breakerId());
      fold.advance(t);
      fold.offer(s);
      Map<BreakerId, State> fleet = new HashMap<>();
      for (BreakerFold f : folds.values()) {
        f.state(t).ifPresent(st -> fleet.put(st.id(), st.state()));
      }
      ReplayState changed = fold.state(t).orElseThrow();
      sink.accept(
          new ReplayFrame(
              Instant.ofEpochMilli(t),
              new TransitionRef(changed.id(), s.epoch(), s.key().streamId()),
              changed,
              fleet));
    }
  }

  /** Streams every transition step of the selected breakers, each once. */
  void steps(BreakerPattern pattern, Consumer<ReplayStep> sink) {
    Set<String> seen = new HashSet<>();
    if (redis != null) {
      for (BreakerEvent e : unforwarded(pattern)) {
        if (e.problem().isPresent()) {
          continue; // malformed: no transition to replay (history shows it as MALFORMED)
        }
        ReplayStep s = ReplayStep.of(e);
        seen.add(s.key().id());
        sink.accept(s);
      }
    }
    // whole documents: a projection costs the server more than it saves on the wire here
    // (scripts/bench control), and a history document is small
    db.call(
        "read history",
        () -> {
          for (Document d :
              db.collection(ControlDatabase.HISTORY)
                  .find(
                      deployment
                          .map(
                              d ->
                                  Filters.and(
                                      pattern.filter("breakerId"),
                                      Filters.or(
                                          Filters.eq("deployment", d),
                                          Filters.exists("deployment", false))))
                          .orElseGet(() -> pattern.filter("breakerId")))
                  .batchSize(2000)) {
            if (TimelineEntries.eventOf(d).problem().isPresent()) {
              continue; // stored marked malformed (or by a forwarder before the mark)
            }
            ReplayStep s = ReplayStep.of(d);
            if (seen.isEmpty() || !seen.contains(s.key().id())) {
              sink.accept(s);
            }
          }
          return null;
        });
  }

  /** The events not yet forwarded of every selected breaker in Redis. */
  private List<BreakerEvent> unforwarded(BreakerPattern pattern) {
    List<BreakerEvent> out = new ArrayList<>();
    for (BreakerId id : StreamTail.breakers(redis, pattern)) {
      BreakerSnapshot s = StoreFutures.await(redis.state(id));
      out.addAll(StreamTail.after(redis, id, s.forwarded().orElse("")));
    }
    return out;
  }
}
