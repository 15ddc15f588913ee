package io.breakerctl.runtime.control.history;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;

import com.mongodb.client.model.Sorts;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.TransitionRef;
import io.breakerctl.runtime.control.audit.AuditAction;
import io.breakerctl.runtime.control.audit.AuditRecord;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Epoch;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.Document;

/**
 * Puts back overrides that MongoDB holds live and Redis lost, whether or not any node uses the
 * breaker (issue 42, item 3). Redis replication is asynchronous: a master that acknowledged a
 * {@code force} can fail over to a replica that never received it (a broken link, {@code
 * min-replicas-to-write 0}), and the override is gone with nothing left in Redis to say so. Nodes
 * that use the breaker put it back from their own view ({@code reassert.lua}); a breaker no node
 * uses (an override set to pre-empt an incident) has no such node.
 *
 * <p><b>Who:</b> the history forwarder, at the end of every pass ({@link
 * HistoryForwarder#syncOnce}: the runtime node holding the forwarder lease every 5 s, and {@code
 * breakerctl history sync}). It is the one process of a fleet that has both MongoDB and every
 * breaker's Redis keys, whatever nodes run, and it already owns "history goes from Redis to
 * MongoDB"; the reverse for overrides is the same duty. {@code replay restore} needs an operator
 * and puts back everything, and the CLI that forced exits before a failover.
 *
 * <p><b>From what:</b> the audit ({@code audit}): per breaker, its latest FORCE or CLEAR; a FORCE
 * not expired is live. Its transition's history document gives the epoch and generation the
 * override was set at and the deployment it belongs to: an override of another deployment that
 * shares the database and prefix is never written here, and one whose transition never reached
 * MongoDB history (forced while MongoDB was down, its stream lost before a forwarder stored it: the
 * CLI's audit spool keeps only who and when) is not put back: force it again.
 *
 * <p><b>When:</b> only when Redis is behind what MongoDB holds: the breaker has no keys (lost with
 * them), or holds the same incarnation at a lower generation or an older incarnation (the promoted
 * replica missed the override, an older RDB), or a newer incarnation without any override whose
 * events are all forwarded (recreated by a node's first call after the loss: a clear made there
 * would be in the audit, which this pass read after forwarding). {@code reassert.lua} decides
 * atomically from what Redis holds (CURRENT, ALREADY, ENDED by Redis time) and writes a {@code
 * REASSERTED} event whose {@code node} is this forwarder's actor with {@code (history forwarder)}
 * and whose {@code reassertedCause} is the lost event's cause: the timeline says who put it back. A
 * newer incarnation in Redis (recreated by a node, cleared there while MongoDB was down) is left as
 * it is. Reads the audit once a pass (operator actions: human scale) and one history document and
 * one HMGET per live override.
 */
public final class OverrideGuard {
  private static final System.Logger LOG = System.getLogger(OverrideGuard.class.getName());

  private final ControlDatabase db;
  private final FleetStore redis;
  private final String actor;

  /** A guard on {@code redis} from {@code db}; {@code actor} names who puts overrides back. */
  public OverrideGuard(ControlDatabase db, FleetStore redis, String actor) {
    this.db = db;
    this.redis = redis;
    this.actor = actor;
  }

  /**
   * Puts back every live override Redis lost.
   *
   * @param deployment the identity of the Redis this pass reads, null when unknown (then only
   *     history without an identity counts)
   * @param failures where a breaker that could not be checked is reported
   * @return the breakers whose override was put back
   */
  List<BreakerId> reassertLost(String deployment, Instant now, List<String> failures) {
    List<BreakerId> put = new ArrayList<>();
    for (Lost l : behind(deployment, now, failures)) {
      try {
        if (reassert(l)) {
          put.add(l.id());
        }
      } catch (RuntimeException e) {
        failures.add("override of " + l.id() + " not put back: " + e.getMessage());
      }
    }
    return put;
  }

  /**
   * An override MongoDB holds live that Redis is behind on.
   *
   * @param id the breaker
   * @param audit its FORCE record
   * @param event its transition's history document
   * @param held what Redis holds of the breaker's keys: {@code no keys} or {@code an older state}
   */
  public record Lost(BreakerId id, AuditRecord audit, Document event, String held) {

    /** "ghost:unused FORCED_OPEN by alice (correlation id ...): Redis holds no keys". */
    public String describe() {
      return id
          + " "
          + audit.after().get("override")
          + " by "
          + audit.actor()
          + " (correlation id "
          + audit.correlationId()
          + "): Redis holds "
          + held;
    }
  }

  /**
   * The overrides MongoDB holds live (the audit's latest FORCE per breaker, not expired, its
   * transition in this deployment's history) that Redis is behind on: no keys, the same incarnation
   * at a lower generation, or an older incarnation. Writes nothing ({@code doctor} reads it too).
   *
   * @param failures where a breaker that could not be read is reported
   */
  public List<Lost> behind(String deployment, Instant now, List<String> failures) {
    List<Lost> out = new ArrayList<>();
    for (AuditRecord r : liveForces(now)) {
      BreakerId id;
      try {
        id = BreakerId.parse(r.target());
      } catch (IllegalArgumentException e) {
        continue; // not a breaker's record
      }
      try {
        TransitionRef ref = r.transition().orElseThrow();
        Document event =
            db.call(
                "read history " + ref.key(),
                () -> db.collection(ControlDatabase.HISTORY).find(eq("_id", ref.key())).first());
        if (event == null || !ofDeployment(event, deployment)) {
          continue;
        }
        BreakerSnapshot held = StoreFutures.await(redis.snapshot(id, 0));
        if (!held.exists() || held.epoch().isEmpty()) {
          out.add(new Lost(id, r, event, "no keys"));
        } else if (Epoch.before(held.epoch(), ref.epoch())
            || (held.epoch().equals(ref.epoch()) && held.generation() < generation(event))) {
          out.add(new Lost(id, r, event, "an older state"));
        } else if (!held.epoch().equals(ref.epoch())
            && !held.hasOverrideField()
            && held.lastEvent().orElse("").equals(held.forwarded().orElse(""))) {
          // recreated after the loss (a node's first call on an empty replica) without it; a
          // clear there would be in the audit by now: every event of the keys is forwarded
          out.add(new Lost(id, r, event, "a newer incarnation without it"));
        }
      } catch (RuntimeException e) {
        failures.add("override of " + id + " not checked: " + e.getMessage());
      }
    }
    return out;
  }

  /** Per breaker, its latest FORCE or CLEAR, when that is a FORCE not expired at {@code now}. */
  private List<AuditRecord> liveForces(Instant now) {
    Map<String, AuditRecord> latest = new LinkedHashMap<>();
    db.call(
        "read overrides in force",
        () -> {
          for (Document d :
              db.collection(ControlDatabase.AUDIT)
                  .find(in("action", AuditAction.FORCE.name(), AuditAction.CLEAR.name()))
                  .sort(Sorts.ascending("at"))) {
            AuditRecord r = AuditRecord.fromDocument(d);
            latest.put(r.target(), r);
          }
          return null;
        });
    List<AuditRecord> live = new ArrayList<>();
    for (AuditRecord r : latest.values()) {
      if (r.action() == AuditAction.FORCE
          && r.transition().isPresent()
          && r.expiresAt().map(now::isBefore).orElse(true)) {
        live.add(r);
      }
    }
    return live;
  }

  /** Puts {@code l} back; {@code reassert.lua} decides again from what Redis holds now. */
  private boolean reassert(Lost l) {
    AuditRecord r = l.audit();
    TransitionRef ref = r.transition().orElseThrow();
    Object kind = r.after().get("override");
    Reassertion request =
        new Reassertion(
            Reassertion.Mode.REASSERT,
            State.fromCode(String.valueOf(kind)),
            ref.epoch(),
            generation(l.event()),
            r.expiresAt().map(Instant::toEpochMilli).orElse(0L),
            0,
            causeOf(l.event().getString("cause")).orElse(null),
            -1,
            r.actor(),
            r.reason(),
            r.correlationId());
    ReassertResult done =
        StoreFutures.await(redis.reassert(l.id(), actor + " (history forwarder)", request, null));
    if (done.written()) {
      LOG.log(System.Logger.Level.WARNING, "put back the override Redis lost: " + l.describe());
    }
    return done.written();
  }

  /** The generation a history document's transition was written at (0 when unknown). */
  private static long generation(Document event) {
    Document fields = event.get("fields", Document.class);
    return parseLong(fields == null ? null : fields.get("generation"));
  }

  /** Whether a history document belongs to {@code deployment} (none: to every deployment). */
  private static boolean ofDeployment(Document event, String deployment) {
    String of = event.getString("deployment");
    return of == null || of.equals(deployment);
  }

  private static Optional<TransitionCause> causeOf(String cause) {
    try {
      return Optional.of(TransitionCause.valueOf(cause));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static long parseLong(Object v) {
    try {
      return v == null ? 0 : Long.parseLong(v.toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
