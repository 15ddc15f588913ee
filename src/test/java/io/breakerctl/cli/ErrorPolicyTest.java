package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.BreakerCtl;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreTlsException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.TlsFailure;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Exit codes come from the store's typed faults, never from the text of Redis's reply. */
@DisplayName("error policy: exit codes from types")
class ErrorPolicyTest {
  private final ErrorPolicy policy = new ErrorPolicy(null);

  @Test
  @DisplayName("a WRONGTYPE fault is 2, wherever it is in the chain; the word alone is not")
  void wrongType() {
    StoreException typed = new StoreException("read a:b: key", null, StoreFault.WRONGTYPE);
    assertThat(policy.getExitCode(typed)).isEqualTo(ExitCode.USAGE);
    assertThat(policy.getExitCode(new RuntimeException("wrapped", typed)))
        .isEqualTo(ExitCode.USAGE);
    assertThat(policy.getExitCode(new StoreException("read a:b: WRONGTYPE in a value", null)))
        .isEqualTo(ExitCode.INTERNAL);
  }

  @Test
  @DisplayName("refused credentials and permissions are 4, wherever they are in the chain")
  void permissions() {
    assertThat(policy.getExitCode(new StorePermissionException("x", null, StoreFault.AUTH)))
        .isEqualTo(ExitCode.PERMISSION);
    StoreException auth = new StoreException("connect", null, StoreFault.AUTH);
    assertThat(policy.getExitCode(new RuntimeException("connect failed", auth)))
        .isEqualTo(ExitCode.PERMISSION);
    assertThat(policy.getExitCode(new RuntimeException("WRONGPASS in a message only")))
        .isEqualTo(ExitCode.INTERNAL);
  }

  @Test
  @DisplayName("Redis refusing the work is 6")
  void unavailable() {
    assertThat(policy.getExitCode(new StoreUnavailableException("x", null, StoreFault.OOM)))
        .isEqualTo(ExitCode.UNAVAILABLE);
  }

  @Test
  @DisplayName(
      "a TLS failure is 6 whatever its kind; only an untrusted certificate hints at the CA file")
  void tls(@TempDir Path dir) {
    Environment env =
        new Environment(
            Map.of("BREAKERCTL_CONFIG", dir.resolve("none.yaml").toString()),
            false,
            Clock.systemUTC(),
            new BufferedReader(new StringReader("")),
            "t");
    for (TlsFailure kind : TlsFailure.values()) {
      StoreTlsException e =
          new StoreTlsException("connect to rediss://h:6380: " + kind.message(), null, kind);
      assertThat(policy.getExitCode(e)).as(kind.name()).isEqualTo(ExitCode.UNAVAILABLE);
      CommandLine cl = BreakerCtl.commandLine(env);
      StringWriter err = new StringWriter();
      cl.setErr(new PrintWriter(err));
      int code =
          new ErrorPolicy((CliContext) cl.getCommand()).handleExecutionException(e, cl, null);
      assertThat(code).as(kind.name()).isEqualTo(ExitCode.UNAVAILABLE);
      assertThat(err.toString())
          .as(kind.name())
          .startsWith("error: connect to rediss://h:6380: " + kind.message());
      assertThat(err.toString().contains("--redis-ca-file"))
          .as(kind.name())
          .isEqualTo(kind == TlsFailure.UNTRUSTED_CERTIFICATE);
    }
  }
}
