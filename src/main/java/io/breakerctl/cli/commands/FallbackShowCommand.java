package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Environment;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.FallbackViews;
import io.breakerctl.cli.output.FallbackViews.SnapshotView;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.runtime.control.fallback.BusinessKeys;
import io.breakerctl.runtime.control.fallback.FallbackCatalog;
import io.breakerctl.runtime.control.fallback.PayloadCipher;
import io.breakerctl.runtime.control.fallback.PayloadKeys;
import io.breakerctl.runtime.fallback.FallbackSnapshot;
import io.breakerctl.runtime.model.BreakerId;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl fallback show ID (KEY | --key-hash H) [--payload]}. */
@Command(
    name = "show",
    description = {
      "One snapshot's metadata. KEY is the business key, hashed with BREAKERCTL_FALLBACK_SALT"
          + " (never stored); --key-hash takes the hash 'fallback list' shows. --payload adds the"
          + " payload, decrypted with BREAKERCTL_FALLBACK_KEYS: without the key it was sealed"
          + " under, exit 4 and nothing of it is shown. Unknown snapshot: exit 7.",
      "Candidate: a fresh capture left pending beside an approved snapshot (when it was"
          + " captured; '-' when none; -o json: candidateCapturedAt), which 'fallback approve'"
          + " puts in the approved one's place."
    })
public final class FallbackShowCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "ID", description = "A breaker id.")
  String id;

  @Parameters(index = "1", arity = "0..1", paramLabel = "KEY", description = "The business key.")
  String businessKey;

  @Option(names = "--key-hash", paramLabel = "HASH", description = "The stored hash instead.")
  String keyHash;

  @Option(names = "--payload", description = "Show the decrypted payload (UTF-8).")
  boolean payload;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    BreakerId breaker = FallbackCommand.breaker(id);
    CliContext root = CliContext.of(spec);
    String hash = hash(root.env(), businessKey, keyHash);
    FallbackCatalog catalog = new FallbackCatalog(root.services().control());
    FallbackSnapshot s =
        catalog
            .snapshot(breaker, hash)
            .orElseThrow(
                () -> CliException.notFound("no snapshot of " + breaker + " for that key"));
    String text = null;
    if (payload) {
      try {
        byte[] bytes =
            catalog.openPayload(breaker, hash, PayloadKeys.fromEnvironment(root.env().variables()));
        text = new String(bytes, StandardCharsets.UTF_8);
      } catch (PayloadCipher.PayloadException e) {
        throw CliException.permission(
            "not allowed to decrypt the payload: "
                + e.getMessage()
                + " (BREAKERCTL_FALLBACK_KEYS)");
      }
    }
    Instant now = root.env().clock().instant();
    SnapshotView v = FallbackViews.of(s, now, text);
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    if (format.isTable()) {
      line(out, "Breaker", v.breakerId());
      line(out, "Key hash", v.keyHash());
      line(out, "Status", v.status() + (v.expired() ? " (expired)" : ""));
      line(out, "Approved by", v.approvedBy().isEmpty() ? "-" : v.approvedBy());
      line(out, "Source", v.source());
      line(out, "Captured", v.capturedAt());
      line(out, "Expires", v.expiresAt());
      line(out, "Key id", v.keyId().isEmpty() ? "(stored unencrypted)" : v.keyId());
      line(
          out,
          "Candidate",
          v.candidateCapturedAt().isEmpty()
              ? "-"
              : "PENDING, captured "
                  + v.candidateCapturedAt()
                  + " ('fallback approve' puts it in this one's place)");
      if (text != null) {
        line(out, "Payload", text);
      }
      out.flush();
    } else {
      Documents.single(format, "Snapshot", v, out);
    }
    return 0;
  }

  private static void line(PrintWriter out, String key, String value) {
    out.println(String.format("%-12s %s", key + ":", Printable.escape(value)));
  }

  /** The key hash: given, or the business key hashed with the environment's salt. */
  static String hash(Environment env, String businessKey, String keyHash) {
    if ((businessKey == null) == (keyHash == null)) {
      throw CliException.usage("give the business KEY or --key-hash HASH");
    }
    if (keyHash != null) {
      if (!keyHash.matches("[0-9a-f]{64}")) {
        throw CliException.usage(
            "--key-hash must be 64 hex digits (as 'fallback list -o json' shows)");
      }
      return keyHash;
    }
    return businessKeys(env).hash(businessKey);
  }

  static BusinessKeys businessKeys(Environment env) {
    String salt = env.get(BusinessKeys.ENV_SALT);
    if (salt == null) {
      throw CliException.usage(
          BusinessKeys.ENV_SALT
              + " is not set: business keys are hashed with the environment's salt");
    }
    try {
      return new BusinessKeys(salt);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(BusinessKeys.ENV_SALT + ": " + e.getMessage());
    }
  }
}
