package io.breakerctl.sandbox;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The redis-server the sandbox runs: the one on {@code PATH} when it is 6.2 or newer, else the
 * linux-amd64 6.2 binary shipped inside the embedded-redis jar, extracted once into a directory of
 * the caller's choosing.
 */
public record RedisExecutable(Path path, String version) {

  static final String EMBEDDED_RESOURCE = "/redis-server-6.2.6-v5-linux-amd64";
  private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");

  /**
   * Finds a usable redis-server.
   *
   * @param extractDir where the embedded binary is extracted when none is on {@code PATH}
   * @throws SandboxException when neither is usable
   */
  public static RedisExecutable find(Path extractDir) {
    return onPath().orElseGet(() -> embedded(extractDir));
  }

  /** The {@code redis-server} on {@code PATH}, if it is 6.2 or newer. */
  public static Optional<RedisExecutable> onPath() {
    String pathEnv = System.getenv("PATH");
    if (pathEnv == null) {
      return Optional.empty();
    }
    for (String dir : pathEnv.split(File.pathSeparator)) {
      Path candidate = Path.of(dir.isEmpty() ? "." : dir, "redis-server");
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        try {
          RedisExecutable found = of(candidate);
          return found.atLeast(6, 2) ? Optional.of(found) : Optional.empty();
        } catch (SandboxException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  /** The embedded 6.2 binary, extracted to {@code extractDir/redis-server-6.2} if not there yet. */
  public static RedisExecutable embedded(Path extractDir) {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new SandboxException(
          "no redis-server >= 6.2 on PATH, and the bundled one is for linux-amd64 only (this is "
              + os
              + "/"
              + arch
              + "): install redis-server 6.2 or newer");
    }
    Path target = extractDir.resolve("redis-server-6.2");
    try (InputStream in = RedisExecutable.class.getResourceAsStream(EMBEDDED_RESOURCE)) {
      if (in == null) {
        throw new SandboxException(
            "no redis-server >= 6.2 on PATH and "
                + EMBEDDED_RESOURCE
                + " is not on the class path");
      }
      byte[] bytes = in.readAllBytes();
      if (!Files.isExecutable(target) || Files.size(target) != bytes.length) {
        Files.createDirectories(extractDir);
        Path tmp = Files.createTempFile(extractDir, "redis-server", ".tmp");
        try {
          Files.write(tmp, bytes);
          Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
          Files.move(
              tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
          Files.deleteIfExists(tmp);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("extracting the bundled redis-server to " + target, e);
    }
    return of(target);
  }

  /** Wraps an executable, probing its version with {@code --version}. */
  public static RedisExecutable of(Path executable) {
    String out;
    try {
      Process p =
          new ProcessBuilder(executable.toString(), "--version").redirectErrorStream(true).start();
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          throw new SandboxException(executable + " --version did not exit within 10 s");
        }
        out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      } finally {
        p.destroyForcibly();
      }
    } catch (IOException e) {
      throw new SandboxException(executable + " --version: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SandboxException("interrupted", e);
    }
    Matcher m = VERSION.matcher(out);
    if (!m.find()) {
      throw new SandboxException(executable + " --version: unexpected output: " + out);
    }
    return new RedisExecutable(
        executable.toAbsolutePath(), m.group(1) + "." + m.group(2) + "." + m.group(3));
  }

  /** Whether this binary is at least {@code major.minor}. */
  public boolean atLeast(int major, int minor) {
    String[] parts = version.split("\\.");
    int have = Integer.parseInt(parts[0]);
    int haveMinor = Integer.parseInt(parts[1]);
    return have > major || (have == major && haveMinor >= minor);
  }
}
