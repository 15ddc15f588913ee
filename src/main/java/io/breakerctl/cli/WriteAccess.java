package io.breakerctl.cli;

import com.mongodb.ConnectionString;
import io.breakerctl.runtime.control.ControlUnavailableException;
import io.breakerctl.runtime.model.Actor;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OperatorText;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.StorePermissionException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Who writes, and whether they may: the one authorization rule of every command that writes Redis
 * or MongoDB, checked before anything is written.
 *
 * <p>The rule (src/docs/cli.md, "Roles"): a write needs the Redis identity's permission to override
 * the breakers it concerns, which is what {@code force --dry-run} checks ({@code EVALSHA} with the
 * breaker's keys, and on Redis 7 every command the override script runs, by {@code
 * redis.acl_check_cmd}, executing none of them). A write that concerns no breaker in particular
 * ({@code history prune}, {@code history sync}, a policy over breakers that do not exist yet) is
 * checked on a probe key under the prefix. Then, where MongoDB authenticates, the MongoDB user's
 * privileges must cover every action the control plane's writes take; MongoDB's own {@code
 * Unauthorized} (code 13) answer exits 4 as well. A denial exits 4 naming what is missing, and
 * nothing is written anywhere: no version, no note, no audit record, no index.
 *
 * <p>The actor recorded with every write is the identity the CLI authenticated as (the Redis ACL
 * user; the MongoDB user when only MongoDB authenticates), with the OS user and host beside it:
 * {@code operator(alice@ci-7)}.
 */
public final class WriteAccess {
  /** How many permission checks are in flight at once. */
  private static final int BATCH = 512;

  /** The breaker id whose keys stand for "any breaker under the prefix". */
  static final BreakerId PROBE = BreakerId.parse("breakerctl:write-access-probe");

  private WriteAccess() {}

  /**
   * The actor of this run: the authenticated identity, the OS user and the host, checked.
   *
   * @throws CliException usage when the OS user name is not one operators can be shown
   */
  public static String actor(CliContext root) {
    Confirmation.checkText(
        "the actor's OS user (the USER environment variable)",
        root.env().user(),
        OperatorText.MAX_ACTOR_BYTES);
    return Actor.of(identity(root), root.env().user(), host(root.env()));
  }

  /**
   * The identity the CLI authenticates as: the Redis ACL user ({@code --redis-user}, the URI's
   * user, or {@code default} when a password alone is given); without Redis credentials, the
   * MongoDB URI's user; else {@code default} (Redis's user for unauthenticated connections).
   */
  static String identity(CliContext root) {
    Settings s = root.services().settings();
    Optional<String> redis =
        root.stores().authenticatedUser(s.redis(), s.redisUser(), s.redisPassword());
    if (redis.isPresent()) {
      return redis.get();
    }
    try {
      ConnectionString mongo = new ConnectionString(s.mongo());
      if (mongo.getCredential() != null && mongo.getCredential().getUserName() != null) {
        return mongo.getCredential().getUserName();
      }
    } catch (RuntimeException e) {
      // likewise
    }
    return "default";
  }

  /** This machine's name: HOSTNAME, else the kernel's, else {@code unknown}. */
  static String host(Environment env) {
    String h = env.get("HOSTNAME");
    if (h == null) {
      for (String f : List.of("/proc/sys/kernel/hostname", "/etc/hostname")) {
        try {
          h = Files.readString(Path.of(f), StandardCharsets.UTF_8).trim();
          if (!h.isEmpty()) {
            break;
          }
        } catch (IOException | RuntimeException e) {
          h = null;
        }
      }
    }
    String shown = Actor.shortHost(h);
    return OperatorText.problem(shown, OperatorText.MAX_ACTOR_BYTES).isPresent()
        ? "unknown"
        : shown;
  }

  /**
   * Checks that this run's identities may write what concerns {@code breakers} (none: any breaker
   * under the prefix), before anything is written.
   *
   * @param what the write, named in a denial (e.g. {@code note on orders:pricing})
   * @throws StorePermissionException (exit 4) naming the missing Redis permission
   * @throws io.breakerctl.runtime.control.ControlPermissionException (exit 4) naming the MongoDB
   *     user and the missing actions
   */
  public static void require(CliContext root, String what, Collection<BreakerId> breakers) {
    FleetStore store = root.services().redis();
    List<BreakerId> ids = new ArrayList<>(new LinkedHashSet<>(breakers));
    if (ids.isEmpty()) {
      ids.add(PROBE);
    }
    String user = identity(root);
    for (int from = 0; from < ids.size(); from += BATCH) {
      List<CompletableFuture<Void>> pending = new ArrayList<>();
      for (BreakerId id : ids.subList(from, Math.min(ids.size(), from + BATCH))) {
        pending.add(store.checkOverridePermission(id));
      }
      for (CompletableFuture<Void> p : pending) {
        try {
          StoreFutures.await(p);
        } catch (StorePermissionException e) {
          throw new StorePermissionException(
              what
                  + ": refused before anything was written: a write needs the Redis permission to"
                  + " override the breakers it concerns, and user '"
                  + user
                  + "' lacks it ("
                  + e.getMessage()
                  + ")",
              e,
              e.fault());
        }
      }
    }
    try {
      root.services().control().requireWritable(what);
    } catch (ControlUnavailableException e) {
      // MongoDB down: nothing to ask it; each write handles that as it always has (force sends
      // its audit to the breakers' event streams, a note fails with exit 6)
    }
  }

  /**
   * {@link #require} for a write that deletes audit records ({@code history prune}): the Redis
   * identity must also be an administrator (it may run {@code CONFIG GET}, {@code @admin}; the
   * admin role of src/docs/cli.md).
   */
  public static void requireAdmin(CliContext root, String what) {
    try {
      StoreFutures.await(root.services().redis().checkAdminPermission(what));
    } catch (StorePermissionException e) {
      throw new StorePermissionException(
          what
              + ": refused before anything was written: deleting audit records needs the admin"
              + " role, and user '"
              + identity(root)
              + "' lacks it ("
              + e.getMessage()
              + ")",
          e,
          e.fault());
    }
    require(root, what, List.of());
  }

  /** {@link #require} for one breaker. */
  public static void require(CliContext root, String what, BreakerId breaker) {
    require(root, what, List.of(breaker));
  }
}
