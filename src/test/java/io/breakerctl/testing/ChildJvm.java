package io.breakerctl.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Java main class running in a separate JVM with the test class path and the same java binary.
 * Its stdout and stderr are captured line by line. Registered with {@link TestProcesses}, so it
 * never outlives the test JVM; {@link #close()} SIGKILLs it if still running.
 */
public final class ChildJvm implements AutoCloseable {

  private final Process process;
  private final List<String> stdout = Collections.synchronizedList(new ArrayList<>());
  private final List<String> stderr = Collections.synchronizedList(new ArrayList<>());
  private final Thread outReader;
  private final Thread errReader;

  private ChildJvm(Process process) {
    this.process = process;
    this.outReader = drain(process.getInputStream(), stdout, "out");
    this.errReader = drain(process.getErrorStream(), stderr, "err");
  }

  /** Runs {@code mainClass} with {@code args} in a new JVM. */
  public static ChildJvm start(Class<?> mainClass, String... args) {
    return start(List.of(), mainClass, args);
  }

  /** Runs {@code mainClass} with JVM options (e.g. {@code -Xmx64m}, {@code -Dk=v}) and args. */
  public static ChildJvm start(List<String> jvmArgs, Class<?> mainClass, String... args) {
    return start(Map.of(), jvmArgs, mainClass, args);
  }

  /** Runs {@code mainClass} with extra environment variables, JVM options and args. */
  public static ChildJvm start(
      Map<String, String> env, List<String> jvmArgs, Class<?> mainClass, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBinary());
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass.getName());
    cmd.addAll(List.of(args));
    Process p;
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd);
      pb.environment().putAll(env);
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("starting child JVM " + mainClass.getName(), e);
    }
    TestProcesses.register(p);
    return new ChildJvm(p);
  }

  /** The child's pid. */
  public long pid() {
    return process.pid();
  }

  /** Whether the child is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits up to {@code timeout} for the child to exit and returns its exit code. On timeout the
   * child is killed and an {@link IllegalStateException} carrying its output is thrown.
   */
  public int waitFor(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        kill();
        throw new IllegalStateException(
            "child JVM " + pid() + " still running after " + timeout + "; " + output());
      }
      // The process has exited; its pipes reach EOF promptly.
      outReader.join(5000);
      errReader.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill();
      throw new IllegalStateException("interrupted waiting for child JVM", e);
    }
    TestProcesses.unregister(process);
    return process.exitValue();
  }

  /** Stdout lines captured so far. */
  public List<String> stdout() {
    synchronized (stdout) {
      return List.copyOf(stdout);
    }
  }

  /** Stderr lines captured so far. */
  public List<String> stderr() {
    synchronized (stderr) {
      return List.copyOf(stderr);
    }
  }

  /** SIGKILLs the child and waits (bounded) for it to die. */
  public void kill() {
    TestProcesses.killAndWait(process, Duration.ofSeconds(5));
    TestProcesses.unregister(process);
  }

  /** Kills the child if it is still running. */
  @Override
  public void close() {
    kill();
  }

  private String output() {
    return "stdout=" + stdout() + " stderr=" + stderr();
  }

  private static String javaBinary() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private static Thread drain(InputStream in, List<String> sink, String name) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  sink.add(line);
                }
              } catch (IOException e) {
                // stream closed by kill
              }
            },
            "child-jvm-" + name);
    t.setDaemon(true);
    t.start();
    return t;
  }
}
