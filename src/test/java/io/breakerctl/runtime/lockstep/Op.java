package io.breakerctl.runtime.lockstep;

import io.breakerctl.runtime.model.State;

/**
 * One operation of a generated sequence, in the terms a caller of the breaker uses: outcomes, an
 * acquire, a probe's result, an operator override, a warm, a wait. Which lease a probe reports and
 * which generation a result names are given relative to what the side answered before (the newest
 * grant, the generation of the last answer), so the same sequence means the same thing on every
 * side, and shrinking keeps it meaningful.
 */
sealed interface Op {

  /** The generation a result names. */
  enum Gen {
    /** unknown ('' on the wire) */
    UNKNOWN,
    /** the generation of the side's last answer */
    CURRENT,
    /** one below it (a result admitted before the last transition) */
    PREVIOUS
  }

  /** {@code n} failed calls. */
  record Fail(int n, Gen gen) implements Op {
    @Override
    public String toString() {
      return "fail(" + n + ", " + gen + ")";
    }
  }

  /** A batch of {@code n} successes (no duration). */
  record Succeed(int n, Gen gen) implements Op {
    @Override
    public String toString() {
      return "ok(" + n + ", " + gen + ")";
    }
  }

  /** One successful call that took {@code millis} (a slow call when the policy says so). */
  record Call(int millis, Gen gen) implements Op {
    @Override
    public String toString() {
      return "call(" + millis + " ms, " + gen + ")";
    }
  }

  /** An acquire by {@code owner}; {@code named}: the caller names the lease a grant gets. */
  record Acquire(String owner, boolean named) implements Op {
    @Override
    public String toString() {
      return "acquire(" + owner + (named ? ", named" : "") + ")";
    }
  }

  /** How a probe ended. */
  enum Result {
    OK,
    FAIL,
    /** a success that took 40 ms (slow when slowCallMillis is at most 40) */
    SLOW
  }

  /**
   * The result of the probe run under the {@code back}-th newest lease granted (0: the newest; none
   * granted yet: a lease nobody holds), reported by its owner or by the other node, with the
   * lease's generation or {@code gen}.
   */
  record Probe(int back, Result result, boolean otherOwner, Gen gen, boolean leaseGen)
      implements Op {
    @Override
    public String toString() {
      return "probe(lease -"
          + back
          + ", "
          + result
          + (otherOwner ? ", other owner" : "")
          + ", "
          + (leaseGen ? "lease's gen" : gen)
          + ")";
    }
  }

  /**
   * Renews the {@code back}-th newest lease (a probe still running), by its owner or by the other
   * node, with the lease's generation or the side's last one.
   */
  record Renew(int back, boolean otherOwner, boolean leaseGen) implements Op {
    @Override
    public String toString() {
      return "renew(lease -"
          + back
          + (otherOwner ? ", other owner" : "")
          + (leaseGen ? "" : ", last gen")
          + ")";
    }
  }

  /** Gives the {@code back}-th newest lease back unused, by its owner or by the other node. */
  record Release(int back, boolean otherOwner) implements Op {
    @Override
    public String toString() {
      return "release(lease -" + back + (otherOwner ? ", other owner" : "") + ")";
    }
  }

  /** Sets the override {@code kind} for {@code millis} (0: until cleared). */
  record Force(State kind, int millis) implements Op {
    @Override
    public String toString() {
      return "force(" + kind + ", " + (millis == 0 ? "until cleared" : millis + " ms") + ")";
    }
  }

  /** Clears the override. */
  record Clear() implements Op {
    @Override
    public String toString() {
      return "clear";
    }
  }

  /** Warms policy {@code policyId} at {@code version} with the policy variant {@code variant}. */
  record Warm(String policyId, int version, int variant) implements Op {
    @Override
    public String toString() {
      return "warm(" + policyId + " v" + version + ", variant " + variant + ")";
    }
  }

  /** Lets {@code millis} pass (a real wait on Redis, a clock move on the Java sides). */
  record Wait(int millis) implements Op {
    @Override
    public String toString() {
      return "wait(" + millis + " ms)";
    }
  }
}
