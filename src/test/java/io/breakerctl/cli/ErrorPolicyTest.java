package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

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
}
