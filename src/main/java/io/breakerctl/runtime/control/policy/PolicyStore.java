package io.breakerctl.runtime.control.policy;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.Document;

/**
 * Policy versions in MongoDB: reads, and the compare-and-set that creates version N+1 (see the
 * package documentation for the protocol). Knows nothing about Redis.
 */
public final class PolicyStore {

  private final ControlDatabase db;

  /** A store on {@code db}. */
  public PolicyStore(ControlDatabase db) {
    this.db = db;
  }

  private MongoCollection<Document> versions() {
    return db.collection(ControlDatabase.POLICY_VERSIONS);
  }

  private MongoCollection<Document> pointers() {
    return db.collection(ControlDatabase.POLICIES);
  }

  /** The newest version of a policy, empty when it has none. */
  public Optional<PolicyVersion> latest(PolicyId id) {
    return db.call(
        "read policy " + id,
        () ->
            Optional.ofNullable(
                    versions()
                        .find(eq("policyId", id.toString()))
                        .sort(Sorts.descending("version"))
                        .limit(1)
                        .first())
                .map(PolicyVersion::fromDocument));
  }

  /** The newest version number of a policy, 0 when it has none. */
  public long latestVersion(PolicyId id) {
    return latest(id).map(PolicyVersion::version).orElse(0L);
  }

  /** One version. */
  public Optional<PolicyVersion> version(PolicyId id, long version) {
    return db.call(
        "read policy " + id + " version " + version,
        () ->
            Optional.ofNullable(
                    versions()
                        .find(and(eq("policyId", id.toString()), eq("version", version)))
                        .first())
                .map(PolicyVersion::fromDocument));
  }

  /** Every version of a policy, oldest first. */
  public List<PolicyVersion> versions(PolicyId id) {
    return db.call(
        "read versions of " + id,
        () -> {
          List<PolicyVersion> out = new ArrayList<>();
          for (Document d :
              versions().find(eq("policyId", id.toString())).sort(Sorts.ascending("version"))) {
            out.add(PolicyVersion.fromDocument(d));
          }
          return out;
        });
  }

  /**
   * The version in force at {@code now} ({@link PolicyVersion#inForce(List, Instant)}): the newest
   * version that has not expired. A temporary version stops being in force at its expiry and the
   * one before it applies again; empty when no version is in force (the policy does not exist, was
   * deleted, or every version expired).
   */
  public Optional<PolicyVersion> inForce(PolicyId id, Instant now) {
    return PolicyVersion.inForce(versions(id), now);
  }

  /** The version in force at {@code now} of every policy that has one, by policy id. */
  public Map<PolicyId, PolicyVersion> allInForce(Instant now) {
    return db.call(
        "read policies",
        () -> {
          Map<PolicyId, List<PolicyVersion>> all = new LinkedHashMap<>();
          for (Document d :
              versions()
                  .find()
                  .sort(Sorts.orderBy(Sorts.ascending("policyId"), Sorts.ascending("version")))) {
            PolicyVersion v = PolicyVersion.fromDocument(d);
            all.computeIfAbsent(v.policyId(), k -> new ArrayList<>()).add(v);
          }
          Map<PolicyId, PolicyVersion> out = new LinkedHashMap<>();
          all.forEach((id, vs) -> PolicyVersion.inForce(vs, now).ifPresent(v -> out.put(id, v)));
          return out;
        });
  }

  /** The newest version of every policy, by policy id. */
  public Map<PolicyId, PolicyVersion> allLatest() {
    return db.call(
        "read policies",
        () -> {
          Map<PolicyId, PolicyVersion> out = new LinkedHashMap<>();
          for (Document d :
              versions()
                  .find()
                  .sort(Sorts.orderBy(Sorts.ascending("policyId"), Sorts.descending("version")))) {
            PolicyVersion v = PolicyVersion.fromDocument(d);
            out.putIfAbsent(v.policyId(), v);
          }
          return out;
        });
  }

  /** The current pointer of a policy ({@code policies} collection), 0 when absent. */
  public long pointer(PolicyId id) {
    return db.call(
        "read pointer of " + id,
        () -> {
          Document d = pointers().find(eq("_id", id.toString())).first();
          return d == null ? 0L : ((Number) d.get("version")).longValue();
        });
  }

  /**
   * Creates version {@code expected + 1}. The insert is the commit point: the unique {@code
   * (policyId, version)} index lets exactly one of several racing writers succeed. The winner then
   * moves the current pointer from {@code expected} by compare-and-set; a loser that finds the
   * pointer behind the newest version moves it forward before reporting the conflict, so a writer
   * that died between the two steps never blocks the policy.
   *
   * @param version the new version; its number must be {@code expected + 1}
   * @throws PolicyConflictException when {@code expected} is no longer the newest version
   */
  public PolicyVersion create(long expected, PolicyVersion version) {
    if (version.version() != expected + 1) {
      throw new IllegalArgumentException(
          "new version must be " + (expected + 1) + " but was " + version.version());
    }
    PolicyId id = version.policyId();
    long latest = latestVersion(id);
    if (latest != expected) {
      helpPointer(id, latest);
      throw new PolicyConflictException(id, expected, latest);
    }
    boolean inserted =
        db.call(
            "create " + id + " version " + version.version(),
            () -> {
              try {
                versions().insertOne(version.toDocument());
                return true;
              } catch (RuntimeException e) {
                if (ControlDatabase.isDuplicateKey(e)) {
                  return false;
                }
                throw e;
              }
            });
    if (!inserted) {
      long actual = latestVersion(id);
      helpPointer(id, actual);
      throw new PolicyConflictException(id, expected, actual);
    }
    movePointer(id, expected, version.version(), version.createdAt());
    return version;
  }

  private void helpPointer(PolicyId id, long newest) {
    long p = pointer(id);
    if (p < newest) {
      movePointer(id, p, newest, Instant.now());
    }
  }

  /**
   * Moves the pointer forward to {@code to} by compare-and-set on the value it holds ({@code from}
   * first). Never moves it backwards: a pointer already at or past {@code to} (another writer
   * helped) is left alone.
   */
  private void movePointer(PolicyId id, long from, long to, Instant at) {
    db.call(
        "move pointer of " + id + " to " + to,
        () -> {
          long seen = from;
          for (int attempt = 0; attempt < 10; attempt++) {
            if (seen >= to) {
              return null;
            }
            if (seen == 0) {
              try {
                pointers()
                    .insertOne(
                        new Document("_id", id.toString())
                            .append("version", to)
                            .append("updatedAt", Date.from(at)));
                return null;
              } catch (RuntimeException e) {
                if (!ControlDatabase.isDuplicateKey(e)) {
                  throw e;
                }
              }
            } else if (pointers()
                    .findOneAndUpdate(
                        and(eq("_id", id.toString()), eq("version", seen)),
                        Updates.combine(
                            Updates.set("version", to), Updates.set("updatedAt", Date.from(at))))
                != null) {
              return null;
            }
            Document now = pointers().find(eq("_id", id.toString())).first();
            seen = now == null ? 0 : ((Number) now.get("version")).longValue();
          }
          throw new ControlException("pointer of " + id + " kept moving; gave up at " + seen);
        });
  }
}
