package io.breakerctl.runtime.control.replay;

import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlException;
import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditLog;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.control.history.DeploymentMismatchException;
import io.breakerctl.runtime.control.history.Deployments;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicyResolver;
import io.breakerctl.runtime.control.policy.PolicyStore;
import io.breakerctl.runtime.control.policy.PolicyVersion;
import io.breakerctl.runtime.control.timeline.TimelineKey;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.EffectiveState;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.LostAnswerException;
import io.breakerctl.runtime.store.RestoreRequest;
import io.breakerctl.runtime.store.RestoreResult;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.WarmResult;
import io.breakerctl.runtime.store.WriteOutcome;
import io.breakerctl.runtime.store.Written;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Rebuilds breakers' Redis keys from the control plane after Redis lost its data (FLUSHALL, a
 * failover to an empty replica): the stored state, the open window, live overrides with their
 * remaining expiry, the warmed policy version in force, and a new epoch, through restore.lua (one
 * slot per breaker).
 *
 * <p>{@link #plan} is the dry run: it reads history and the keys and says what {@link #restore}
 * would do, writing nothing. A breaker whose keys already hold a transition at or after the
 * history's newest is left alone and reported ({@link RestoreAction#MOVED_ON}); the script decides
 * that again atomically, so a transition that lands between plan and restore is not overwritten.
 * Running a restore twice changes nothing the second time.
 *
 * <p><b>Only a deployment's own history.</b> History is restored only into the deployment it
 * belongs to ({@link Deployments}): the Redis's identity (its key, or, when its data is lost, the
 * recorded deployment it was reached at before) selects the history documents of that deployment
 * (and those stored before identities existed). A Redis that is no recorded deployment, while
 * others are on record for its prefix, is refused (exit 3 in the CLI) with the recorded ones
 * listed; naming one ({@link #from}, {@code --from-deployment}) restores that deployment's history
 * into it: a new deployment, deliberately.
 */
public final class BreakerRestore {

  private final ControlDatabase db;
  private final FleetStore redis;
  private final Clock clock;
  private final Deployments deployments;
  private final Optional<String> named;

  /** A restore from {@code db} into {@code redis} of the Redis's own deployment's history. */
  public BreakerRestore(ControlDatabase db, FleetStore redis, Clock clock) {
    this(db, redis, clock, Optional.empty());
  }

  private BreakerRestore(
      ControlDatabase db, FleetStore redis, Clock clock, Optional<String> named) {
    this.db = db;
    this.redis = redis;
    this.clock = clock;
    this.deployments = new Deployments(db);
    this.named = named;
  }

  /**
   * A restore of deployment {@code id}'s history into this Redis, whichever deployment the Redis
   * is: the explicit way to restore into a new deployment.
   */
  public BreakerRestore from(String id) {
    return new BreakerRestore(db, redis, clock, Optional.of(id));
  }

  /**
   * Whose history a restore takes.
   *
   * @param deployment the deployment whose history is restored; empty when none is on record for
   *     the prefix (every history document then)
   * @param into the Redis's own identity, empty when it has none yet
   * @param basis how the two were found, for the plan's header
   * @param others the other deployments on record for the prefix (their history is not restored)
   */
  public record Source(
      Optional<String> deployment,
      Optional<String> into,
      String basis,
      List<Deployments.Deployment> others) {}

  /**
   * Checks which history goes into this Redis.
   *
   * @throws DeploymentMismatchException when the Redis is no recorded deployment while others are
   *     on record (name one with {@link #from}), or when the one named is not on record
   */
  public Source source() {
    Deployments.Identity me = deployments.identify(redis);
    String prefix = redis.keyPrefix();
    Optional<String> into = me.id();
    String how =
        me.key().isPresent()
            ? "this Redis's identity (key " + redis.deploymentKey() + ")"
            : me.atAddress()
                .map(
                    d ->
                        "its data lost; recognised by its address ("
                            + String.join(", ", redis.addresses())
                            + ")")
                .orElse("");
    if (named.isPresent()) {
      String n = named.get();
      if (me.recorded().stream().noneMatch(d -> d.id().equals(n)) && !into.equals(named)) {
        throw new DeploymentMismatchException(
            "no deployment "
                + n
                + " on record for prefix '"
                + prefix
                + "'"
                + recordedList(me.recorded())
                + "; nothing was restored",
            true);
      }
      String basis =
          into.equals(named)
              ? "named, and this Redis's own: " + how
              : "named with --from-deployment: restored into "
                  + into.map(i -> "deployment " + i).orElse("this Redis, a new deployment");
      return new Source(named, into, basis, others(me.recorded(), n));
    }
    if (into.isPresent()) {
      return new Source(into, into, how, others(me.recorded(), into.get()));
    }
    if (me.recorded().isEmpty()) {
      return new Source(
          Optional.empty(),
          Optional.empty(),
          "no deployment on record for prefix '" + prefix + "': every history document",
          List.of());
    }
    throw new DeploymentMismatchException(
        "this Redis ("
            + (redis.addresses().isEmpty()
                ? "address unknown"
                : String.join(", ", redis.addresses()))
            + ") is no deployment on record for prefix '"
            + prefix
            + "', and the history there belongs to other deployments"
            + recordedList(me.recorded())
            + "; nothing was restored. To restore one of them into this Redis as a new deployment,"
            + " name it: --from-deployment "
            + me.recorded().get(0).id(),
        false);
  }

  private static List<Deployments.Deployment> others(
      List<Deployments.Deployment> recorded, String id) {
    return recorded.stream().filter(d -> !d.id().equals(id)).toList();
  }

  private static String recordedList(List<Deployments.Deployment> recorded) {
    return recorded.isEmpty()
        ? " (none is)"
        : ": "
            + String.join("; ", recorded.stream().map(Deployments.Deployment::describe).toList());
  }

  /**
   * The dry run: what {@link #restore} would do to each selected breaker in history.
   *
   * @throws io.breakerctl.runtime.control.ControlUnavailableException when MongoDB is down
   * @throws StoreException when Redis is down
   */
  public RestorePlan plan(BreakerPattern pattern) {
    String corr = UUID.randomUUID().toString();
    Source source = source();
    List<Planned> planned = planned(pattern, source);
    long time = planned.stream().mapToLong(Planned::redisTimeMillis).max().orElse(0);
    return new RestorePlan(planned.stream().map(Planned::item).toList(), true, time, corr, source);
  }

  /** A plan's item with the history steps a restore writes from. */
  private record Planned(
      RestoreItem item,
      ReplayStep last,
      ReplayStep opener,
      long overrideUntilMillis,
      long redisTimeMillis) {}

  private List<Planned> planned(BreakerPattern pattern, Source source) {
    Map<String, BreakerFold> folds = new TreeMap<>();
    new Replay(db, null)
        .of(source.deployment())
        .steps(
            pattern,
            s ->
                folds
                    .computeIfAbsent(
                        s.breakerId(), id -> new BreakerFold(BreakerId.parse(id), Long.MAX_VALUE))
                    .offer(s));
    Map<PolicyId, PolicyVersion> policies = new PolicyStore(db).allInForce(clock.instant());
    List<Planned> out = new ArrayList<>();
    for (BreakerFold fold : folds.values()) {
      BreakerSnapshot keys =
          StoreFutures.await(redis.state(BreakerId.parse(fold.last().breakerId())));
      long now = keys.redisTimeMillis();
      long overrideUntil = fold.state(now).orElseThrow().overrideUntilMillis();
      out.add(
          new Planned(item(fold, keys, policies), fold.last(), fold.opener(), overrideUntil, now));
    }
    return out;
  }

  private static RestoreItem item(
      BreakerFold fold, BreakerSnapshot keys, Map<PolicyId, PolicyVersion> policies) {
    long now = keys.redisTimeMillis();
    ReplayStep last = fold.last();
    ReplayState s = fold.state(now).orElseThrow();
    Optional<State> override =
        s.override().filter(o -> !EffectiveState.overrideExpired(s.overrideUntilMillis(), now));
    long remaining =
        override.isPresent() && s.overrideUntilMillis() > 0 ? s.overrideUntilMillis() - now : 0;
    Optional<PolicyVersion> policy =
        PolicyResolver.resolve(keys.id(), p -> Optional.ofNullable(policies.get(p)))
            .map(PolicyResolver.Resolved::value);
    TransitionRef source = new TransitionRef(keys.id(), last.epoch(), last.key().streamId());
    RestoreItem planned =
        new RestoreItem(
            keys.id(),
            RestoreAction.RESTORE,
            s.state(),
            s.stored(),
            s.stored() == State.OPEN ? s.openUntilMillis() : 0,
            override,
            remaining,
            policy.map(p -> p.policyId().toString()).orElse(""),
            policy.map(PolicyVersion::version).orElse(0L),
            source,
            keys.epoch(),
            "",
            Optional.empty());
    String lastEvent = keys.lastEvent().orElse("0-0");
    if (keys.epoch().equals(last.epoch())
        && TimelineKey.compareStreamIds(lastEvent, last.key().streamId()) >= 0) {
      return planned.with(RestoreAction.INTACT, keys.epoch(), "the keys hold this incarnation");
    }
    if (source
        .epoch()
        .concat("|")
        .concat(source.streamId())
        .equals(keys.restoredFrom().orElse(null))) {
      return planned.with(RestoreAction.ALREADY_RESTORED, keys.epoch(), "restored before");
    }
    OptionalLong moved = keys.lastTransitionAt();
    if (moved.isPresent() && moved.getAsLong() >= last.key().at()) {
      return planned.with(
          RestoreAction.MOVED_ON,
          keys.epoch(),
          "the keys hold a transition at "
              + Instant.ofEpochMilli(moved.getAsLong())
              + ", not before the history's newest");
    }
    if (s.stored() == State.CLOSED && override.isEmpty()) {
      return planned.with(RestoreAction.NOT_NEEDED, keys.epoch(), "CLOSED without a live override");
    }
    return planned;
  }

  /**
   * Restores every selected breaker the plan marks {@link RestoreAction#RESTORE}: warms the policy
   * in force, then runs restore.lua, which decides once more atomically. Each restored breaker gets
   * a {@link AuditAction#RESTORE} audit record linked to its RESTORED transition.
   *
   * @throws io.breakerctl.runtime.control.ControlUnavailableException when MongoDB is down (nothing
   *     was written)
   * @throws StoreException when Redis is down before anything was written
   */
  public RestorePlan restore(BreakerPattern pattern, String actor, String reason) {
    if (actor == null || actor.isBlank()) {
      throw new IllegalArgumentException("restore actor must not be empty");
    }
    String corr = UUID.randomUUID().toString();
    Source source = source();
    List<Planned> plan = planned(pattern, source);
    if (plan.stream().anyMatch(p -> p.item().action() == RestoreAction.RESTORE)) {
      // the Redis takes (or keeps) its identity before a breaker is written: what it forwards
      // from now on is its own history
      deployments.ensure(redis, clock);
    }
    Map<PolicyId, PolicyVersion> policies = new PolicyStore(db).allInForce(clock.instant());
    AuditLog audit = new AuditLog(db);
    List<RestoreItem> out = new ArrayList<>();
    long time = 0;
    String lost = null;
    for (Planned p : plan) {
      time = Math.max(time, p.redisTimeMillis());
      RestoreItem item = p.item();
      if (item.action() != RestoreAction.RESTORE) {
        out.add(lost == null ? warmBack(item, policies, actor) : item);
        continue;
      }
      if (lost != null) {
        // the store closed its connection after reading a lost answer back: nothing more is sent
        out.add(
            item.with(
                RestoreAction.FAILED,
                item.epoch(),
                "not attempted: the connection to Redis failed on an earlier breaker ("
                    + lost
                    + ")",
                Optional.of(WriteOutcome.NOT_APPLIED)));
        continue;
      }
      try {
        RestoreItem done = restoreOne(p, corr + ":" + item.id(), actor, reason, policies, audit);
        if (done.readBack().isPresent()) {
          lost = done.detail();
        }
        out.add(done);
      } catch (LostAnswerException e) {
        out.add(
            item.with(
                RestoreAction.FAILED, item.epoch(), e.getMessage(), Optional.of(e.outcome())));
        lost = e.getMessage();
      } catch (StoreException | ControlException e) {
        out.add(item.with(RestoreAction.FAILED, item.epoch(), e.getMessage()));
      }
    }
    return new RestorePlan(out, false, time, corr, source);
  }

  /**
   * Warms the policy in force back into a breaker the plan leaves as it is (its state intact, or
   * not needed): the nodes re-created its keys after Redis lost its data, but a policy only MongoDB
   * holds (no running node held the breaker) came back with nothing. Monotonic: a newer version
   * stays. Said in the item's detail when it wrote; a failure is said there too, never thrown.
   */
  private RestoreItem warmBack(
      RestoreItem item, Map<PolicyId, PolicyVersion> policies, String actor) {
    if (item.policyId().isEmpty()) {
      return item;
    }
    PolicyVersion v = policies.get(PolicyId.parse(item.policyId()));
    if (v == null) {
      return item;
    }
    try {
      WarmResult w =
          StoreFutures.await(
              redis.warm(item.id(), item.policyId(), v.version(), v.policy(), actor));
      if (w.outcome() != io.breakerctl.runtime.model.WarmOutcome.WARMED) {
        return item;
      }
      return item.with(
          item.action(),
          item.epoch(),
          join(item.detail(), "policy " + item.policyId() + " v" + v.version() + " warmed back"));
    } catch (StoreException e) {
      return item.with(
          item.action(),
          item.epoch(),
          join(item.detail(), "policy not warmed back: " + e.getMessage()));
    }
  }

  private static String join(String detail, String more) {
    return detail.isEmpty() ? more : detail + "; " + more;
  }

  private RestoreItem restoreOne(
      Planned p,
      String corr,
      String actor,
      String reason,
      Map<PolicyId, PolicyVersion> policies,
      AuditLog audit) {
    RestoreItem item = p.item();
    if (!item.policyId().isEmpty()) {
      PolicyVersion v = policies.get(PolicyId.parse(item.policyId()));
      StoreFutures.await(redis.warm(item.id(), item.policyId(), v.version(), v.policy(), actor));
    }
    ReplayStep last = p.last();
    long openMillis = p.opener() == null ? 0 : p.opener().openMillis();
    RestoreRequest request =
        new RestoreRequest(
            item.stored(),
            item.openUntilMillis(),
            openMillis,
            item.override().orElse(null),
            item.override().isPresent() ? p.overrideUntilMillis() : 0,
            item.override().isPresent() ? last.actor() : "",
            item.override().isPresent() ? last.reason() : "",
            item.override().isPresent() ? last.correlationId() : "",
            item.source().epoch(),
            item.source().streamId(),
            last.key().at(),
            last.generation(),
            actor,
            reason,
            corr);
    Written<RestoreResult> written =
        redis.awaitWrite(item.id(), corr, redis.restore(item.id(), request), RestoreResult::landed);
    RestoreResult r = written.value();
    // a lost answer that was read back as landed is a restore like any other, said so
    String landed =
        written.readBack()
            ? "the connection to Redis failed ("
                + written.lostAnswer()
                + "), but the restore landed: Redis, read back, holds it (correlation id "
                + corr
                + ")"
            : "";
    Optional<WriteOutcome> readBack =
        written.readBack() ? Optional.of(WriteOutcome.APPLIED) : Optional.empty();
    RestoreAction action =
        switch (r.status()) {
          case RESTORED -> RestoreAction.RESTORED;
          case INTACT -> RestoreAction.INTACT;
          case ALREADY_RESTORED -> RestoreAction.ALREADY_RESTORED;
          case MOVED_ON -> RestoreAction.MOVED_ON;
        };
    if (action != RestoreAction.RESTORED) {
      return item.with(action, r.epoch(), "decided by the script at restore time", readBack);
    }
    audit.record(
        new AuditRecord(
            corr,
            AuditAction.RESTORE,
            item.id().toString(),
            actor,
            reason,
            clock.instant(),
            Optional.empty(),
            Map.of("epoch", r.previousEpoch()),
            Map.of("state", r.state().code(), "epoch", r.epoch(), "source", item.source().key()),
            Optional.of(new TransitionRef(item.id(), r.epoch(), r.eventId()))));
    return item.with(RestoreAction.RESTORED, r.epoch(), landed, readBack);
  }
}
