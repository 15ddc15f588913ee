package io.breakerctl.runtime.control.history;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.StoreFutures;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.bson.Document;

/**
 * Which deployment a history belongs to. Several deployments (a staging and a production Redis, an
 * old and a new cluster) may share one control-plane database and even one prefix; each breaker's
 * history must go back only into the Redis it came from.
 *
 * <p>A deployment is one Redis (standalone, Sentinel or Cluster) under one prefix. Its identity,
 * {@code d-} and 12 hex digits, is held in two places:
 *
 * <ul>
 *   <li>in Redis, at {@code <prefix>:deployment} (a string without expiry), set with {@code SET NX}
 *       by the first history forwarder that runs against that Redis, or by a restore into it;
 *   <li>in MongoDB, collection {@code deployments}: {@code _id} the identity, the prefix, every
 *       address ({@code host:port}) it was reached at, and when it was first and last seen.
 * </ul>
 *
 * <p>Every history document the forwarder stores carries the identity ({@code deployment}).
 * Documents stored before identities existed carry none and belong to every deployment.
 *
 * <p>A Redis that lost its data lost its key too. It is recognised by its addresses: a Redis whose
 * key is missing is the recorded deployment of the same prefix it was reached at before, so a
 * forwarder puts the same identity back and {@code replay restore} restores that deployment's
 * history without asking. A Redis at other addresses is a new deployment: its forwarder gives it a
 * new identity, and a restore into it needs the source named ({@code --from-deployment}); the Redis
 * then takes that identity over (the deployment moved). A Redis that holds another identity is
 * never restored into from someone else's history: it is a live deployment of its own (delete its
 * key by hand when it is retired).
 */
public final class Deployments {

  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * A deployment on record.
   *
   * @param id its identity
   * @param prefix the key prefix
   * @param addresses every address it was reached at ({@code host:port}, sorted as recorded)
   * @param firstSeen when it was recorded
   * @param lastSeen when a forwarder or restore last saw it
   */
  public record Deployment(
      String id, String prefix, List<String> addresses, Instant firstSeen, Instant lastSeen) {

    /** Whether it was reached at one of {@code at}. */
    public boolean reachedAt(List<String> at) {
      return at.stream().anyMatch(addresses::contains);
    }

    /** "d-0123456789ab (127.0.0.1:6379, last seen 2026-...)" for messages. */
    public String describe() {
      return id + " (" + String.join(", ", addresses) + ", last seen " + lastSeen + ")";
    }
  }

  /**
   * What a Redis says about itself.
   *
   * @param key the identity it holds, if any
   * @param atAddress the recorded deployment of its prefix it was reached at before, if any (the
   *     most recently seen when several match)
   * @param recorded every deployment on record for its prefix, most recently seen first
   */
  public record Identity(
      Optional<String> key, Optional<Deployment> atAddress, List<Deployment> recorded) {

    /** The identity it holds or is recognised by. */
    public Optional<String> id() {
      return key.isPresent() ? key : atAddress.map(Deployment::id);
    }
  }

  private final ControlDatabase db;

  /** Deployments recorded in {@code db}. */
  public Deployments(ControlDatabase db) {
    this.db = db;
  }

  /**
   * The deployments on record for {@code prefix}, most recently seen first.
   *
   * @throws io.breakerctl.runtime.control.ControlUnavailableException when MongoDB is down
   */
  public List<Deployment> recorded(String prefix) {
    return db.call(
        "read deployments",
        () -> {
          List<Deployment> out = new ArrayList<>();
          for (Document d :
              db.collection(ControlDatabase.DEPLOYMENTS)
                  .find(eq("prefix", prefix))
                  .sort(Sorts.descending("lastSeen"))) {
            out.add(
                new Deployment(
                    d.getString("_id"),
                    d.getString("prefix"),
                    d.getList("addresses", String.class, List.of()),
                    d.getDate("firstSeen").toInstant(),
                    d.getDate("lastSeen").toInstant()));
          }
          return out;
        });
  }

  /**
   * What {@code redis} holds and where it was seen before; writes nothing.
   *
   * @throws io.breakerctl.runtime.control.ControlUnavailableException when MongoDB is down
   * @throws io.breakerctl.runtime.store.StoreException when Redis fails
   */
  public Identity identify(FleetStore redis) {
    Optional<String> key = StoreFutures.await(redis.deployment());
    List<Deployment> recorded = recorded(redis.keyPrefix());
    Optional<Deployment> at =
        recorded.stream().filter(d -> d.reachedAt(redis.addresses())).findFirst();
    return new Identity(key, at, recorded);
  }

  /**
   * The identity of {@code redis}, set where it is missing (the history forwarder's call): the one
   * its key holds, else the recorded deployment it was reached at before, else a new one. Records
   * the addresses it is reached at now.
   *
   * @throws io.breakerctl.runtime.control.ControlUnavailableException when MongoDB is down
   * @throws io.breakerctl.runtime.store.StoreException when Redis fails
   */
  public String ensure(FleetStore redis, Clock clock) {
    Identity identity = identify(redis);
    String id = identity.key().orElse(null);
    if (id == null) {
      id =
          StoreFutures.await(
              redis.claimDeployment(
                  identity.atAddress().map(Deployment::id).orElseGet(Deployments::newId)));
    }
    seen(id, redis, clock);
    return id;
  }

  private void seen(String id, FleetStore redis, Clock clock) {
    Date now = Date.from(clock.instant());
    db.call(
        "record deployment " + id,
        () ->
            db.collection(ControlDatabase.DEPLOYMENTS)
                .updateOne(
                    eq("_id", id),
                    Updates.combine(
                        Updates.setOnInsert("prefix", redis.keyPrefix()),
                        Updates.setOnInsert("firstSeen", now),
                        Updates.addEachToSet("addresses", redis.addresses()),
                        Updates.max("lastSeen", now)),
                    new UpdateOptions().upsert(true)));
  }

  /** A new identity: {@code d-} and 12 random hex digits. */
  static String newId() {
    byte[] b = new byte[6];
    RANDOM.nextBytes(b);
    return "d-" + HexFormat.of().formatHex(b);
  }
}
