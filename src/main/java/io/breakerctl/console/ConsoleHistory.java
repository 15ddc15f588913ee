package io.breakerctl.console;

import io.breakerctl.runtime.connection.Redaction;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jline.reader.impl.history.DefaultHistory;

/**
 * The console's history: a file only its owner may read or write (created 0600, an existing one
 * tightened to 0600 before every write, its directory created 0700), which never holds a secret.
 *
 * <p>A line that carries a secret is <b>not kept at all</b> (neither in the file nor for up-arrow
 * in the session), rather than kept redacted: a recalled {@code redis://viewer:***@...} would only
 * run with the wrong password, and dropping the whole line is the one rule that cannot leak a
 * password the redaction failed to parse. A line carries a secret when it holds a URI with a user
 * info ({@link Redaction#hasSecret}, and more broadly any {@code @} after a {@code ://}, which also
 * covers a quoted password holding a space or a quote), or a word naming a password or secret with
 * a value ({@code --redis-password PW}, {@code --password=PW}, {@code password=PW}); a {@code
 * ...-file} option names a file, not a secret, and is kept. A history file written before this rule
 * is cleaned of such lines when the console starts.
 */
final class ConsoleHistory extends DefaultHistory {
  private static final Pattern USER_INFO = Pattern.compile("://.*@", Pattern.DOTALL);
  private static final Pattern SECRET_NAME = Pattern.compile("pass(word|wd)|secret");

  private final Path file;

  /** The history kept in {@code file} (also the reader's {@code HISTORY_FILE}). */
  ConsoleHistory(Path file) {
    this.file = file;
  }

  /** Whether {@code line} carries a password or another secret (see the class comment). */
  static boolean carriesSecret(String line) {
    if (Redaction.hasSecret(line) || USER_INFO.matcher(line).find()) {
      return true;
    }
    String[] words = line.strip().split("\\s+");
    for (int i = 0; i < words.length; i++) {
      String word = words[i].replaceAll("^['\"]+", "").toLowerCase(Locale.ROOT);
      int eq = word.indexOf('=');
      String name = eq < 0 ? word : word.substring(0, eq);
      if (!SECRET_NAME.matcher(name).find() || name.endsWith("-file")) {
        continue;
      }
      boolean inlineValue = eq >= 0 && eq < word.length() - 1;
      boolean nextValue = eq < 0 && name.startsWith("-") && i + 1 < words.length;
      if (inlineValue || nextValue) {
        return true;
      }
    }
    return false;
  }

  /**
   * Makes the file private (creating it and its directory when missing) and removes the lines that
   * carry a secret from it; call before the reader loads it.
   */
  void clean() throws IOException {
    makePrivate();
    List<String> lines = Files.readAllLines(file);
    List<String> kept = new ArrayList<>();
    for (String l : lines) {
      if (!carriesSecret(l)) {
        kept.add(l);
      }
    }
    if (kept.size() == lines.size()) {
      return;
    }
    Path temp =
        Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp", owner("rw"));
    Files.write(temp, kept);
    Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public void add(Instant time, String line) {
    if (!carriesSecret(line)) {
      super.add(time, line);
    }
  }

  @Override
  public void save() throws IOException {
    makePrivate();
    super.save();
  }

  private void makePrivate() throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir, owner("rwx"));
    }
    if (!Files.exists(file)) {
      Files.createFile(file, owner("rw"));
    } else if (posix()) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
  }

  /** {@code rw-------} or {@code rwx------} where the file system has POSIX modes, else none. */
  private static FileAttribute<?>[] owner(String mode) {
    if (!posix()) {
      return new FileAttribute<?>[0];
    }
    String bits = (mode + "---").substring(0, 3) + "------";
    return new FileAttribute<?>[] {
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(bits))
    };
  }

  private static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }
}
