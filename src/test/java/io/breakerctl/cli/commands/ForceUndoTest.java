package io.breakerctl.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The undo a force prints is a command a shell runs as it reads. */
@DisplayName("force names its undo")
class ForceUndoTest {

  @Test
  void exactIdGlobAndSelectors() {
    assertThat(ForceCommand.undo("checkout:payments", null, null, "incident-42"))
        .isEqualTo("breakerctl force clear checkout:payments --reason 'undo: incident-42'");
    assertThat(ForceCommand.undo("claims:*", null, null, "drill"))
        .isEqualTo("breakerctl force clear 'claims:*' --reason 'undo: drill'");
    assertThat(ForceCommand.undo(null, "claims", "members", "it's down"))
        .isEqualTo(
            "breakerctl force clear --caller claims --dependency members --reason 'undo: it'\\''s"
                + " down'");
  }
}
