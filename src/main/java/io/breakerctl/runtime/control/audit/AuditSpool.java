package io.breakerctl.runtime.control.audit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/**
 * Audit records kept on local disk while MongoDB cannot take them: one file per action, {@code
 * <correlationId>.json} (the record as MongoDB's extended JSON), mode 0600 in a directory of mode
 * 0700. Without it, the only copy of an override's audit taken while MongoDB was down was the
 * override event in the breaker's Redis stream, which an evicting Redis, a FLUSHALL or a deleted
 * key drops with nothing left to find. {@link #deliver} stores every spooled record (an upsert by
 * correlation id: a record the forwarder already stored from the stream is not duplicated) and
 * deletes its file; the CLI delivers after any audit MongoDB took and in {@code history sync}.
 */
public final class AuditSpool {
  private final Path dir;

  /** A spool in {@code dir} (created on first write). */
  public AuditSpool(Path dir) {
    this.dir = dir;
  }

  /** The directory. */
  public Path dir() {
    return dir;
  }

  /**
   * Keeps {@code r} until it is delivered; written to a temporary file and moved into place, so a
   * reader never sees half a record.
   *
   * @throws UncheckedIOException when the file cannot be written
   */
  public void write(AuditRecord r) {
    try {
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir);
        setMode(dir, "rwx------");
      }
      String name = safe(r.correlationId()) + ".json";
      Path tmp = Files.createTempFile(dir, ".spool-", ".tmp");
      setMode(tmp, "rw-------");
      Files.writeString(tmp, r.toDocument().toJson(), StandardCharsets.UTF_8);
      try {
        Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException | FileAlreadyExistsException e) {
        Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot keep the audit record in " + dir, e);
    }
  }

  /** The spooled records' files, oldest name first (empty when there is no spool). */
  public List<Path> pending() {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
      files.forEach(out::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the audit spool " + dir, e);
    }
    out.sort(null);
    return out;
  }

  /**
   * Stores every spooled record in {@code audit} and deletes its file; stops at the first record
   * MongoDB does not take (the rest stay for the next delivery).
   *
   * @return how many records were delivered
   * @throws io.breakerctl.runtime.control.ControlException when MongoDB refuses or is unavailable
   *     (the record stays spooled)
   */
  public int deliver(AuditLog audit) {
    int n = 0;
    for (Path f : pending()) {
      AuditRecord r;
      try {
        r = AuditRecord.fromDocument(Document.parse(Files.readString(f, StandardCharsets.UTF_8)));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read spooled audit record " + f, e);
      } catch (RuntimeException e) {
        // not a record this build wrote (damaged, hand-edited): kept aside, never delivered
        quarantine(f);
        continue;
      }
      audit.record(r);
      try {
        Files.deleteIfExists(f);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove delivered audit record " + f, e);
      }
      n++;
    }
    return n;
  }

  private static void quarantine(Path f) {
    try {
      Files.move(
          f, f.resolveSibling(f.getFileName() + ".bad"), StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot set aside unreadable audit record " + f, e);
    }
  }

  private static String safe(String correlationId) {
    return correlationId.replaceAll("[^A-Za-z0-9._-]", "_");
  }

  private static void setMode(Path p, String mode) throws IOException {
    try {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: its own permissions apply
    }
  }
}
