package io.breakerctl.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.cli.output.BreakerView;
import io.breakerctl.cli.output.Printable;
import java.util.List;
import org.jline.utils.AttributedString;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("top's screen: nothing read from Redis reaches the terminal raw")
class TopScreenTest {

  /** Rates as wide as a busy fleet's: at 80 columns they must leave room for the id and expiry. */
  private static final BreakerView.Rates RATES =
      new BreakerView.Rates(12_345.6, 1_234.5, 99.9, 60_000);

  @Test
  @DisplayName("a planted override, lease owner and transition are escaped on their lines")
  void escaped() {
    BreakerView v =
        new BreakerView(
            "svc:dep",
            "FORCED_OPEN",
            "CLOSED",
            new BreakerView.Failures(0, 0, 5, null, null, 0),
            null,
            List.of(new BreakerView.Lease("l1", "n\u001b[2J\u009b\u202e", null, null, null)),
            new BreakerView.Override(
                "FORCED_OPEN", "eve\u001b]0;x\u0007", "why\u009b31m\u202e\nfake", "t", null, "c"),
            null,
            new BreakerView.Nodes(1, List.of(), List.of(), List.of(), List.of()),
            "2026-12-01T10:00:00Z",
            null,
            RATES);
    TopScreen screen = new TopScreen();
    screen.rows(List.of(v), 0);
    screen.title("redis://h\u202e:6379");
    screen.transition("10:00:00 svc:dep CLOSED -> OPEN (FAILURE_THRESHOLD, n\u009b1)");
    List<AttributedString> lines = screen.lines(400, 20, true);
    String all = String.join("\n", lines.stream().map(AttributedString::toString).toList());
    assertThat(lines).hasSize(20);
    assertThat(all.replace("\n", "").chars().anyMatch(Printable::isUnsafe)).as(all).isFalse();
    assertThat(all)
        .contains("eve\\x1b]0;x\\x07: why\\u009b31m\\u202e\\nfake")
        .contains("1 n\\x1b[2J\\u009b\\u202e")
        .contains("redis://h\\u202e:6379")
        .contains("n\\u009b1)");
  }

  @Test
  @DisplayName("at 80x24 every line fits and a forced row shows its expiry")
  void eightyColumns() {
    BreakerView forced =
        new BreakerView(
            "checkout-service:payments-gateway-eu",
            "FORCED_OPEN",
            "CLOSED",
            new BreakerView.Failures(0, 0, 5, null, null, 0),
            null,
            List.of(),
            new BreakerView.Override(
                "FORCED_OPEN",
                "alice@ops-laptop",
                "incident 4711: the gateway answers 502",
                "2026-12-01T09:58:00Z",
                "2026-12-01T10:30:00Z",
                "c"),
            null,
            new BreakerView.Nodes(12, List.of("n1"), List.of(), List.of(), List.of()),
            "2026-12-01T10:00:00Z",
            null,
            RATES);
    BreakerView probing =
        new BreakerView(
            "checkout-service:inventory",
            "HALF_OPEN",
            "HALF_OPEN",
            new BreakerView.Failures(5, 20, 5, null, null, 0),
            "2026-12-01T10:00:30Z",
            List.of(new BreakerView.Lease("l1", "node-a-7f9c", null, null, null)),
            null,
            null,
            new BreakerView.Nodes(12, List.of(), List.of(), List.of(), List.of()),
            "2026-12-01T10:00:00Z",
            null,
            RATES);
    TopScreen screen = new TopScreen();
    screen.rows(List.of(forced, probing), 0);
    screen.title("redis://127.0.0.1:6379");
    List<AttributedString> lines = screen.lines(80, 24, true);
    assertThat(lines).hasSize(24);
    assertThat(lines).allSatisfy(l -> assertThat(l.columnLength()).isLessThanOrEqualTo(80));
    String all = String.join("\n", lines.stream().map(AttributedString::toString).toList());
    assertThat(all).contains("checkout-service:payments-gateway-eu").contains("until in 30m");
  }

  @Test
  @DisplayName("fit keeps each character's style and cuts after escaping")
  void fit() {
    AttributedString line =
        new AttributedString("a\u009bb", org.jline.utils.AttributedStyle.BOLD.foreground(1));
    AttributedString fitted = TopScreen.fit(line, 6);
    assertThat(fitted.toString()).isEqualTo("a\\u009");
    assertThat(fitted.styleAt(3)).isEqualTo(line.styleAt(1));
  }
}
