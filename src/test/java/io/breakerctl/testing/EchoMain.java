package io.breakerctl.testing;

/**
 * Trivial main for {@link ChildJvm} tests: prints {@code "echo:" + arg} per argument to stdout,
 * {@code "pid:" + pid} to stderr, sleeps {@code -Dsleep=ms} (default 0), and exits with the code
 * given by {@code -Dexit=N} (default 0).
 */
public final class EchoMain {

  private EchoMain() {}

  /** Entry point. */
  public static void main(String[] args) throws InterruptedException {
    for (String arg : args) {
      System.out.println("echo:" + arg);
    }
    System.err.println("pid:" + ProcessHandle.current().pid());
    System.out.flush();
    Thread.sleep(Long.getLong("sleep", 0L));
    System.exit(Integer.getInteger("exit", 0));
  }
}
