package io.breakerctl.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * The promises a test checks, one verdict per run, printed in the one format {@code scripts/stress}
 * tallies: {@code promise <name> ok} or {@code promise <name> VIOLATED <what was seen>}.
 *
 * <p>A test checks each round's promises with {@link #check} (an assertion block: its {@code
 * AssertionError} is the violation, with its message) and calls {@link #assertHeld()} at the end,
 * so a stress run of {@link #ROUNDS} rounds runs every round and reports every violation, not only
 * the first. In the suite {@code ROUNDS} is 1 and the test fails exactly as its assertions would.
 */
public final class Promises {

  /**
   * How many rounds a promise test runs ({@code stress.rounds}; 1 in the suite, 20 or more under
   * {@code scripts/stress}).
   */
  public static final int ROUNDS = Integer.getInteger("stress.rounds", 1);

  /** An assertion block. */
  @FunctionalInterface
  public interface Check {
    void run() throws Exception;
  }

  private final List<String> violations = new ArrayList<>();

  /** Runs {@code check}; prints and keeps its verdict for {@code promise}. */
  public synchronized void check(String promise, Check check) {
    try {
      check.run();
      System.out.println("promise " + promise + " ok");
    } catch (AssertionError | Exception e) {
      String what = String.valueOf(e.getMessage()).replaceAll("\\s+", " ").trim();
      System.out.println("promise " + promise + " VIOLATED " + what);
      violations.add(promise + ": " + what);
    }
  }

  /** Records a verdict decided by the caller. */
  public synchronized void verdict(String promise, boolean held, String detail) {
    check(
        promise,
        () -> {
          if (!held) {
            throw new AssertionError(detail);
          }
        });
  }

  /** Fails with every violation seen, or returns when every promise held. */
  public synchronized void assertHeld() {
    if (!violations.isEmpty()) {
      throw new AssertionError(
          violations.size() + " promise(s) violated:\n  " + String.join("\n  ", violations));
    }
  }
}
