package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * One pass over a whole fleet ({@link FleetStore#fleet}): the ids, snapshots or half-present
 * breakers a {@link FleetSelection} picks, read across every part of the keyspace within one
 * deadline. A part that does not answer in time is left out and named ({@link #missing()}); the
 * caller says what is missing or, when its answer needs every breaker, {@link #requireComplete()}.
 */
public interface FleetScan {

  /**
   * A part of the keyspace a read could not reach: the slots a master holds (every slot on a
   * standalone server), the master, and why.
   *
   * @param slots slot ranges, e.g. {@code 0-5460} ({@code all} on a standalone server)
   * @param node the master's {@code host:port}; empty when no master holds the slots
   * @param reason why they were not read
   */
  record Missing(String slots, String node, String reason) {
    /** "slots 0-5460 on 127.0.0.1:7000 (reason)"; "every key (reason)" on a standalone server. */
    public String describe() {
      return ("all".equals(slots) ? "every key" : "slots " + slots)
          + (node.isEmpty() ? "" : " on " + node)
          + " ("
          + reason
          + ")";
    }
  }

  /** The parts not read, each described ({@link Missing#describe}), joined with "; ". */
  static String describe(List<Missing> missing) {
    return String.join("; ", missing.stream().map(Missing::describe).toList());
  }

  /** What the reads so far could not reach: empty when the whole keyspace was read. */
  List<Missing> missing();

  /**
   * Fails when the reads so far left part of the keyspace out.
   *
   * @throws StoreUnavailableException naming the parts not read
   */
  void requireComplete();

  /** What is left of this pass's deadline (zero once it has passed). */
  Duration remaining();

  /** Calls {@code sink} with the id of every selected breaker that has keys. */
  void ids(FleetSelection selector, Consumer<BreakerId> sink);

  /**
   * Calls {@code sink} with a snapshot (no events) of every selected breaker, on this thread; a
   * breaker whose keys cannot be read goes to {@code unreadable} with the reason.
   */
  void snapshots(
      FleetSelection selector,
      Consumer<BreakerSnapshot> sink,
      BiConsumer<BreakerId, String> unreadable);

  /**
   * Calls {@code sink} with every selected breaker whose keys are half present: its event stream is
   * there but its state hash is not.
   */
  void halfPresent(FleetSelection selector, Consumer<BreakerId> sink);
}
