package io.breakerctl.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A redis-server executable and its version. Use {@link #embedded()} for the 6.2 binary shipped in
 * the embedded-redis jar (always available on linux-amd64), {@link #onPath()} for a system
 * redis-server, and {@link #all()} to parameterize a suite over every distinct version available.
 *
 * <p>{@link #toString()} is the {@link #label()}, so parameterized test names read well.
 */
public final class RedisBinary {

  static final String EMBEDDED_RESOURCE = "/redis-server-6.2.6-v5-linux-amd64";
  private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");

  private static volatile RedisBinary embedded;

  private final Path path;
  private final String version;
  private final int major;
  private final int minor;

  private RedisBinary(Path path, String version, int major, int minor) {
    this.path = path;
    this.version = version;
    this.major = major;
    this.minor = minor;
  }

  /**
   * The linux-amd64 redis-server from the embedded-redis jar, extracted once per content hash to
   * {@code java.io.tmpdir/breakerctl-redis/<sha>/redis-server} (atomically, so parallel JVMs can
   * race safely).
   *
   * @throws UnsupportedOperationException on other platforms
   */
  public static RedisBinary embedded() {
    RedisBinary b = embedded;
    if (b == null) {
      synchronized (RedisBinary.class) {
        b = embedded;
        if (b == null) {
          b = of(extractEmbedded());
          embedded = b;
        }
      }
    }
    return b;
  }

  /** The {@code redis-server} found on {@code PATH}, if any and if it is version 6.2 or newer. */
  public static Optional<RedisBinary> onPath() {
    String pathEnv = System.getenv("PATH");
    if (pathEnv == null) {
      return Optional.empty();
    }
    for (String dir : pathEnv.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, "redis-server");
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        try {
          RedisBinary b = of(candidate);
          return b.atLeast(6, 2) ? Optional.of(b) : Optional.empty();
        } catch (RuntimeException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The distinct binaries to run a suite against: the embedded 6.2 one (on linux-amd64), plus the
   * one on {@code PATH} when present and of a different version.
   *
   * @throws IllegalStateException if no usable binary exists at all
   */
  public static List<RedisBinary> all() {
    List<RedisBinary> result = new ArrayList<>();
    if (embeddedSupported()) {
      result.add(embedded());
    }
    onPath()
        .filter(p -> result.stream().noneMatch(b -> b.version.equals(p.version)))
        .ifPresent(result::add);
    if (result.isEmpty()) {
      throw new IllegalStateException(
          "no redis-server: embedded binary is linux-amd64 only and none (>= 6.2) is on PATH");
    }
    return List.copyOf(result);
  }

  /** Wraps an existing executable, probing its version with {@code --version}. */
  public static RedisBinary of(Path executable) {
    String out = versionOutput(executable);
    Matcher m = VERSION.matcher(out);
    if (!m.find()) {
      throw new IllegalStateException(executable + " --version: unexpected output: " + out);
    }
    return new RedisBinary(
        executable.toAbsolutePath(),
        m.group(1) + "." + m.group(2) + "." + m.group(3),
        Integer.parseInt(m.group(1)),
        Integer.parseInt(m.group(2)));
  }

  /** Whether this platform can run the embedded binary. */
  public static boolean embeddedSupported() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    return os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64"));
  }

  /** Absolute path of the executable. */
  public Path path() {
    return path;
  }

  /** Version as reported by {@code --version}, e.g. {@code "6.2.11"}. */
  public String version() {
    return version;
  }

  /** Short label such as {@code "redis-6.2.11"}. */
  public String label() {
    return "redis-" + version;
  }

  /** Whether this binary is at least {@code major.minor}. */
  public boolean atLeast(int wantMajor, int wantMinor) {
    return major > wantMajor || (major == wantMajor && minor >= wantMinor);
  }

  @Override
  public String toString() {
    return label();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RedisBinary && ((RedisBinary) o).path.equals(path);
  }

  @Override
  public int hashCode() {
    return Objects.hash(path);
  }

  private static String versionOutput(Path executable) {
    try {
      Process p =
          new ProcessBuilder(executable.toString(), "--version").redirectErrorStream(true).start();
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException(executable + " --version did not exit within 10 s");
        }
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      } finally {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Path extractEmbedded() {
    if (!embeddedSupported()) {
      throw new UnsupportedOperationException(
          "embedded redis-server is linux-amd64 only; this is "
              + System.getProperty("os.name")
              + "/"
              + System.getProperty("os.arch"));
    }
    byte[] bytes;
    try (InputStream in = RedisBinary.class.getResourceAsStream(EMBEDDED_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(
            EMBEDDED_RESOURCE + " not on class path (is embedded-redis a test dependency?)");
      }
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path dir =
        Path.of(
            System.getProperty("java.io.tmpdir"),
            "breakerctl-redis",
            sha256(bytes).substring(0, 16));
    Path target = dir.resolve("redis-server");
    try {
      if (Files.isExecutable(target) && Files.size(target) == bytes.length) {
        return target;
      }
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, "redis-server", ".tmp");
      try {
        Files.write(tmp, bytes);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.move(
            tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(tmp);
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("extracting embedded redis-server to " + target, e);
    }
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
