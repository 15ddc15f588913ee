package io.breakerctl.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerSnapshot;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** describe shows the back-off hint that set the open window while it is in force. */
@DisplayName("describe: the dependency's back-off hint in force")
class BackoffHintViewTest {
  private static final long NOW = 1_796_000_000_000L;

  /**
   * A breaker a Retry-After of 3600 s opened 2 s ago, for maxOpenSeconds 4 (read at {@code at}).
   */
  private static BreakerSnapshot snapshot(long at) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("epoch", "1795999000000000");
    f.put("state", "OPEN");
    f.put("generation", "1");
    f.put("openedAt", Long.toString(NOW - 2_000));
    f.put("openUntil", Long.toString(NOW + 2_000));
    f.put("openMillis", "4000");
    f.put("hintMillis", "3600000");
    f.put("hintSource", "RETRY_AFTER");
    f.put("hintUntil", Long.toString(NOW + 2_000));
    return new BreakerSnapshot(
        BreakerId.parse("claims:members"), f, List.of(), List.of(), List.of(), at);
  }

  private static String text(BreakerDetailView v) {
    StringWriter out = new StringWriter();
    PrintWriter w = new PrintWriter(out);
    BreakerTables.describe(
        v, Style.plain(Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC)), w);
    w.flush();
    return out.toString();
  }

  @Test
  @DisplayName("in force: the wait asked (before the cap), its source and the window's end")
  void inForce() {
    BreakerDetailView v = BreakerViews.detail(snapshot(NOW));
    assertThat(v.open().backoffHint())
        .isEqualTo(
            new BreakerDetailView.BackoffHintView(
                3_600_000, "RETRY_AFTER", "2026-11-30T00:53:22.000Z"));
    assertThat(text(v))
        .contains("Back-off hint: 60m asked (RETRY_AFTER), in force to 2026-11-30T00:53:22.000Z");
  }

  @Test
  @DisplayName("past its end: not shown")
  void ended() {
    BreakerDetailView v = BreakerViews.detail(snapshot(NOW + 2_000));
    assertThat(v.open().backoffHint()).isNull();
    assertThat(text(v)).doesNotContain("Back-off hint");
  }
}
