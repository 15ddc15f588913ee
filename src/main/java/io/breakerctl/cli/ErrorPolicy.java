package io.breakerctl.cli;

import com.mongodb.MongoSecurityException;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.runtime.connection.Redaction;
import io.breakerctl.runtime.control.ControlException;
import io.breakerctl.runtime.control.ControlPermissionException;
import io.breakerctl.runtime.control.ControlUnavailableException;
import io.breakerctl.runtime.control.history.DeploymentMismatchException;
import io.breakerctl.runtime.control.policy.HandChangeException;
import io.breakerctl.runtime.control.policy.PolicyConflictException;
import io.breakerctl.runtime.store.LostAnswerException;
import io.breakerctl.runtime.store.MalformedBreakerException;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreTlsException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.TlsFailure;
import io.breakerctl.runtime.store.WriteOutcome;
import io.breakerctl.sandbox.SandboxException;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IExitCodeExceptionMapper;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The one error policy of breakerctl: every exception becomes a documented exit code ({@link
 * ExitCode}) and one message on stderr; the stack trace only with {@code -v}. Every message and
 * trace printed goes through {@link Redaction} first (before it is cut: a cut could drop the
 * {@code @} that ends a password).
 */
public final class ErrorPolicy
    implements IExecutionExceptionHandler, IParameterExceptionHandler, IExitCodeExceptionMapper {

  private final CliContext root;

  /** The policy of the command line whose root is {@code root}. */
  public ErrorPolicy(CliContext root) {
    this.root = root;
  }

  @Override
  public int handleParseException(ParameterException ex, String[] args) {
    CommandLine cmd = ex.getCommandLine();
    PrintWriter err = cmd.getErr();
    err.println("error: " + Printable.escape(Inputs.cutQuoted(Redaction.uri(ex.getMessage()))));
    if (ex instanceof UnmatchedArgumentException u) {
      UnmatchedArgumentException.printSuggestions(u, err);
    }
    err.println(usageHint(cmd));
    err.flush();
    return ExitCode.USAGE;
  }

  @Override
  public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
    PrintWriter err = cmd.getErr();
    int code = getExitCode(ex);
    if (ex instanceof OutputFailedException || Interruption.requested()) {
      // Main reports a failed stdout (quietly for a closed pipe); a signal is its own message
      if (Interruption.requested()) {
        err.println("cancelled: " + Interruption.signal());
      }
      err.flush();
      return code;
    }
    if (code == ExitCode.INTERNAL) {
      err.println(
          "error: internal error (a bug): "
              + ex.getClass().getSimpleName()
              + (ex.getMessage() == null
                  ? ""
                  : ": " + Printable.escape(Inputs.cutQuoted(Redaction.uri(ex.getMessage())))));
      if (!root.verbose()) {
        err.println("Run again with -v for the stack trace, and please report it.");
      }
    } else {
      err.println("error: " + Printable.escape(Inputs.cutQuoted(Redaction.uri(message(ex)))));
      if (wrongType(ex)) {
        err.println(
            "error: a key of that breaker under prefix '"
                + prefix()
                + "' holds another type than breakerctl keeps there (the key table of src/docs/protocol.md;"
                + " redis-cli TYPE shows what it is): is --prefix right, or does something else"
                + " write keys like "
                + prefix()
                + ":{...}?");
      }
      if (ex instanceof StoreTlsException tls
          && tls.failure() == TlsFailure.UNTRUSTED_CERTIFICATE) {
        err.println(
            "hint: trust the CA that signed the server's certificate with --redis-ca-file FILE"
                + " (BREAKERCTL_REDIS_CA_FILE, or a context's redisCaFile)");
      }
      if (ex instanceof LostAnswerException u && u.outcome() == WriteOutcome.UNKNOWN) {
        err.println(
            "hint: whether it landed shows in 'breakerctl history "
                + u.id()
                + "' or 'breakerctl describe "
                + u.id()
                + "' (an event with correlation id "
                + u.correlationId()
                + "); check before running it again");
      }
      if (ex instanceof HandChangeException h) {
        err.println(
            "hint: change the file in the repository to the spec you want ('breakerctl policy get "
                + h.policyId()
                + " -o yaml' prints the one in force); to apply over it deliberately, apply"
                + " without --refuse-over-hand-changes (scripts/ci-rollout:"
                + " CI_ROLLOUT_OVERRIDE_HUMAN=1)");
      }
      if (ex instanceof LostAnswerException n && n.outcome() == WriteOutcome.NOT_APPLIED) {
        err.println("hint: nothing was written; running the same command again is safe");
      }
      if (!(ex instanceof StorePermissionException) && refusedCredentials(ex)) {
        err.println("error: Redis refused the credentials (check the user and its password)");
      }
    }
    if (code == ExitCode.USAGE) {
      err.println(usageHint(cmd));
    }
    if (code == ExitCode.UNAVAILABLE && !(ex instanceof SandboxException)) {
      sandboxHint().ifPresent(err::println);
    }
    if (root.verbose()) {
      err.print(Redaction.trace(ex));
    }
    err.flush();
    return code;
  }

  @Override
  public int getExitCode(Throwable ex) {
    if (Interruption.requested()) {
      return ExitCode.CANCELLED;
    }
    if (ex instanceof OutputFailedException) {
      return ExitCode.OK;
    }
    if (ex instanceof MalformedBreakerException) {
      return ExitCode.CONFLICT;
    }
    if (ex instanceof PolicyConflictException || ex instanceof HandChangeException) {
      return ExitCode.CONFLICT;
    }
    if (ex instanceof DeploymentMismatchException d) {
      return d.unknown() ? ExitCode.NOT_FOUND : ExitCode.CONFLICT;
    }
    if (ex instanceof CliException c) {
      return c.exitCode();
    }
    if (ex instanceof ParameterException || ex instanceof IllegalArgumentException) {
      return ExitCode.USAGE;
    }
    if (wrongType(ex)) {
      return ExitCode.USAGE;
    }
    if (ex instanceof StorePermissionException || refusedCredentials(ex)) {
      return ExitCode.PERMISSION;
    }
    if (ex instanceof LostAnswerException n && n.outcome() == WriteOutcome.NOT_APPLIED) {
      // a lost answer read back as not applied: a plain failure, known; 6 is only for unknown
      return ExitCode.CHECK_FAILED;
    }
    if (ex instanceof StoreUnavailableException
        || ex instanceof ControlUnavailableException
        || ex instanceof SandboxException) {
      return ExitCode.UNAVAILABLE;
    }
    if (hasCause(ex, ControlPermissionException.class)
        || (ex instanceof ControlException && hasCause(ex, MongoSecurityException.class))) {
      return ExitCode.PERMISSION;
    }
    if (ex instanceof CancellationException || ex instanceof InterruptedException) {
      return ExitCode.CANCELLED;
    }
    return ExitCode.INTERNAL;
  }

  /**
   * Redis refused the credentials or a permission ({@link StoreFault#AUTH}, {@link
   * StoreFault#NOPERM}) anywhere in the chain, e.g. a connect failure that carries it as its cause.
   */
  private static boolean refusedCredentials(Throwable ex) {
    return hasFault(ex, StoreFault.AUTH) || hasFault(ex, StoreFault.NOPERM);
  }

  /** Redis answered WRONGTYPE: a key of the prefix is not what a breaker keeps there. */
  private static boolean wrongType(Throwable ex) {
    return hasFault(ex, StoreFault.WRONGTYPE);
  }

  /** Whether a store failure in the chain of {@code ex} has the typed fault {@code fault}. */
  private static boolean hasFault(Throwable ex, StoreFault fault) {
    for (Throwable t = ex; t != null; t = t.getCause()) {
      if (t instanceof StoreException s && s.fault() == fault) {
        return true;
      }
    }
    return false;
  }

  private String prefix() {
    try {
      return root.services().settings().prefix();
    } catch (RuntimeException e) {
      return Settings.DEFAULT_PREFIX;
    }
  }

  private static String message(Throwable ex) {
    return ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
  }

  private static boolean hasCause(Throwable ex, Class<? extends Throwable> type) {
    for (Throwable t = ex; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  /**
   * With no context configured and the default servers unreachable, the likely cause is that
   * nothing was set up yet: say how to start the local sandbox.
   */
  private Optional<String> sandboxHint() {
    try {
      Settings s = root.services().settings();
      if (s.context() == null
          && (Settings.DEFAULT_REDIS.equals(s.redis())
              || Settings.DEFAULT_MONGO.equals(s.mongo()))) {
        return Optional.of(
            "hint: no context is configured and nothing answers on the default ports; start a"
                + " local sandbox with 'breakerctl sandbox up' (or try './scripts/breakerctl demo')");
      }
    } catch (RuntimeException e) {
      // settings that do not resolve have their own error; no hint
    }
    return Optional.empty();
  }

  static String usageHint(CommandLine cmd) {
    return "Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for usage.";
  }
}
