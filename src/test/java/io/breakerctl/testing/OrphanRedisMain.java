package io.breakerctl.testing;

/**
 * Child-JVM main for cleanup tests: starts an embedded redis-server, prints {@code "pid:<pid>"} and
 * {@code "dir:<scratch dir>"}, and never closes it. With argument {@code exit} it then calls {@code
 * System.exit(0)} (the shutdown hook must kill the server); otherwise it sleeps until killed (the
 * next JVM's {@link TestProcesses#reapOrphans()} must kill the server).
 */
public final class OrphanRedisMain {

  private OrphanRedisMain() {}

  /** Entry point. */
  public static void main(String[] args) throws InterruptedException {
    RedisServerProcess server = RedisServerProcess.start(RedisBinary.embedded());
    System.out.println("pid:" + server.pid());
    System.out.println("dir:" + server.dir());
    System.out.flush();
    if (args.length > 0 && args[0].equals("exit")) {
      System.exit(0);
    }
    Thread.sleep(Long.MAX_VALUE);
  }
}
