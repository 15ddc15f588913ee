package io.breakerctl.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/** The documented exit codes of every breakerctl command (BRIEF section 7). */
public final class ExitCode {
  /** Success; a dry run of a mutation that would succeed. */
  public static final int OK = 0;

  /**
   * A check found something (status --check, policy diff, apply --dry-run, wait timed out); a
   * change whose answer was lost and that a read-back showed did not land (nothing written).
   */
  public static final int CHECK_FAILED = 1;

  /** Usage or validation error (a bad URI or CA file included). */
  public static final int USAGE = 2;

  /** Conflict: a policy version moved, an illegal transition, a rejected dry run, a bad hash. */
  public static final int CONFLICT = 3;

  /**
   * Authentication or authorization (Redis ACL NOPERM, wrong password, MongoDB auth or
   * Unauthorized), including a write the identity may not make, refused before anything is written.
   */
  public static final int PERMISSION = 4;

  /** Cancelled: prompt declined, interrupted. */
  public static final int CANCELLED = 5;

  /**
   * Redis or MongoDB unavailable within --timeout, or a TLS connection failed (named); a change
   * whose answer was lost and whose outcome Redis, not answering, left unknown.
   */
  public static final int UNAVAILABLE = 6;

  /** Not found. */
  public static final int NOT_FOUND = 7;

  /** Stdout could not be written (a full disk, a closed file; a closed pipe ends quietly). */
  public static final int OUTPUT_FAILED = 8;

  /** Internal error (a bug). */
  public static final int INTERNAL = 9;

  /**
   * {@code force --min-replicas N}: an override the master took but fewer than N of its replicas
   * acknowledged within the wait (or whose replicas could not be counted): the override IS set, and
   * can be lost in a failover.
   */
  public static final int FEW_REPLICAS = 10;

  private ExitCode() {}

  /** The table printed under "Exit codes:" in every command's help. */
  public static Map<String, String> helpList() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("0", "Success; a --dry-run of a mutation that would succeed.");
    m.put(
        "1",
        "A check found something (status --check: a breaker OPEN or FORCED_OPEN; policy diff and"
            + " policy apply --dry-run: something would change; wait: the timeout passed); force"
            + " and replay restore: the connection failed and Redis, read back, shows the change"
            + " did not land (nothing written).");
    m.put(
        "2",
        "Usage or validation error (a URI whose password needs percent-encoding, a CA file that is"
            + " missing or holds no certificate: named in the error).");
    m.put(
        "3",
        "Conflict: a policy version moved (expected and actual named), policy apply"
            + " --refuse-over-hand-changes found a version in force that no CI rollout made"
            + " (named), an illegal transition,"
            + " a --dry-run that would be rejected, a breaker whose stored hash is malformed (the"
            + " message names key and field).");
    m.put(
        "4",
        "Authentication or authorization (Redis NOPERM, wrong password, MongoDB auth): a write the"
            + " identity may not make is refused before anything is written.");
    m.put("5", "Cancelled (prompt declined, interrupted: SIGINT, SIGTERM).");
    m.put(
        "6",
        "Redis or MongoDB unavailable within --timeout (status and a glob force that could not"
            + " read part of the keyspace, a Cluster master down: what was read is listed, the"
            + " slots and node not read are named), Redis refusing the work (oom, readonly,"
            + " loading, busy, masterdown, clusterdown, tryagain, a script error: named in the"
            + " error), or a TLS connection that failed (an untrusted certificate, a hostname"
            + " mismatch, an expired certificate, a plain server behind rediss://: named in the"
            + " error); force and replay restore: the connection failed and Redis did not answer"
            + " the read-back either, so whether the change landed is unknown (the correlation id"
            + " is named; history or describe shows it).");
    m.put("7", "Not found.");
    m.put("8", "Stdout could not be written (a full disk; a closed pipe ends quietly).");
    m.put("9", "Internal error (a bug: the message says so; -v shows the stack trace).");
    m.put(
        "10",
        "force --min-replicas N (or the context's minReplicas): the override is set on the master"
            + " but fewer than N of its replicas acknowledged it within the wait (or they could"
            + " not be counted): it can be lost in a failover; the output says where it is. In a"
            + " glob or batch the breaker with the fewest replicas decides.");
    return m;
  }
}
