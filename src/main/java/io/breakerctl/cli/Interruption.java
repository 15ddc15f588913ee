package io.breakerctl.cli;

import sun.misc.Signal;

/**
 * SIGINT and SIGTERM cancel the running command: exit 5 (BRIEF section 7), never the JVM's 130 or
 * 143. The handler interrupts the command's thread, so a wait ({@code status --watch}'s interval, a
 * Redis call) ends at once, and a batch ({@code force} over many breakers) stops between breakers
 * and reports the rest as not attempted. A command that does not end within 3 s is halted with 5.
 */
public final class Interruption {
  private static final long GRACE_MILLIS = 3000;
  private static volatile String signal;

  private Interruption() {}

  /** Installs the handlers for {@code thread} (the real process only; tests never call this). */
  public static void install(Thread thread) {
    for (String name : new String[] {"INT", "TERM"}) {
      try {
        Signal.handle(new Signal(name), s -> interrupt(thread, "SIG" + name));
      } catch (IllegalArgumentException e) {
        // the signal is ignored by the parent (a background job) or taken by the JVM: keep it
      }
    }
  }

  private static void interrupt(Thread thread, String name) {
    signal = name;
    thread.interrupt();
    Thread halt =
        new Thread(
            () -> {
              try {
                Thread.sleep(GRACE_MILLIS);
              } catch (InterruptedException e) {
                return;
              }
              Runtime.getRuntime().halt(ExitCode.CANCELLED);
            },
            "breakerctl-interrupt");
    halt.setDaemon(true);
    halt.start();
  }

  /** Whether a signal asked the command to stop. */
  public static boolean requested() {
    return signal != null;
  }

  /** The signal that asked the command to stop ({@code SIGINT}, {@code SIGTERM}), else null. */
  public static String signal() {
    return signal;
  }
}
