package io.breakerctl.runtime.control.timeline;

import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.model.State;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What a timeline page asks for. Immutable; build with {@link #builder(BreakerPattern)}.
 *
 * @param pattern the breakers
 * @param since entries at or after this instant
 * @param until entries before this instant
 * @param state only transitions into this state (other kinds are dropped)
 * @param actor only entries by this actor (or won by this node)
 * @param kinds the kinds to return (all when empty)
 * @param limit the most entries on a page
 * @param cursor the previous page's {@link TimelinePage#cursor()}, to continue after it
 */
public record TimelineQuery(
    BreakerPattern pattern,
    Optional<Instant> since,
    Optional<Instant> until,
    Optional<State> state,
    Optional<String> actor,
    Set<TimelineKind> kinds,
    int limit,
    Optional<String> cursor) {

  /** The default page size. */
  public static final int DEFAULT_LIMIT = 100;

  /** The largest page size. */
  public static final int MAX_LIMIT = 10_000;

  /** Validates and copies. */
  public TimelineQuery {
    Objects.requireNonNull(pattern, "pattern");
    kinds = kinds.isEmpty() ? Set.of() : Set.copyOf(kinds);
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "timeline limit must be 1.." + MAX_LIMIT + " but was " + limit);
    }
    if (since.isPresent() && until.isPresent() && !since.get().isBefore(until.get())) {
      throw new IllegalArgumentException(
          "timeline since (" + since.get() + ") must be before until (" + until.get() + ")");
    }
    cursor.ifPresent(TimelineKey::decode);
  }

  /** A builder for the breakers {@code pattern}: all kinds, no time bounds, 100 entries. */
  public static Builder builder(BreakerPattern pattern) {
    return new Builder(pattern);
  }

  /** The same query continuing after {@code cursor}. */
  public TimelineQuery after(String cursor) {
    return new TimelineQuery(
        pattern, since, until, state, actor, kinds, limit, Optional.of(cursor));
  }

  boolean wants(TimelineKind kind) {
    return (kinds.isEmpty() || kinds.contains(kind))
        && (state.isEmpty() || kind == TimelineKind.TRANSITION);
  }

  /** Builds a {@link TimelineQuery}. */
  public static final class Builder {
    private final BreakerPattern pattern;
    private Instant since;
    private Instant until;
    private State state;
    private String actor;
    private final Set<TimelineKind> kinds = EnumSet.noneOf(TimelineKind.class);
    private int limit = DEFAULT_LIMIT;
    private String cursor;

    private Builder(BreakerPattern pattern) {
      this.pattern = pattern;
    }

    /** Entries at or after {@code since}. */
    public Builder since(Instant since) {
      this.since = since;
      return this;
    }

    /** Entries before {@code until}. */
    public Builder until(Instant until) {
      this.until = until;
      return this;
    }

    /** Only transitions into {@code state}. */
    public Builder state(State state) {
      this.state = state;
      return this;
    }

    /** Only entries by {@code actor}. */
    public Builder actor(String actor) {
      this.actor = actor;
      return this;
    }

    /** Adds a kind to return (all kinds when none is added). */
    public Builder kind(TimelineKind kind) {
      kinds.add(kind);
      return this;
    }

    /** The page size, 1..10,000. */
    public Builder limit(int limit) {
      this.limit = limit;
      return this;
    }

    /** Continues after a previous page's cursor. */
    public Builder cursor(String cursor) {
      this.cursor = cursor;
      return this;
    }

    /** Builds the query. */
    public TimelineQuery build() {
      return new TimelineQuery(
          pattern,
          Optional.ofNullable(since),
          Optional.ofNullable(until),
          Optional.ofNullable(state),
          Optional.ofNullable(actor),
          kinds,
          limit,
          Optional.ofNullable(cursor));
    }
  }
}
