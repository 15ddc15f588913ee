package io.breakerctl.cli.exporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The two exposition formats: families together, the OpenMetrics spellings, escaped labels. */
@DisplayName("exposition: text 0.0.4 and OpenMetrics")
class ExpositionTest {

  private static Exposition sample() {
    Exposition e =
        new Exposition()
            .family("x_state", Exposition.Type.GAUGE, "a state\nwith \"quotes\" and \\")
            .family("x_events_total", Exposition.Type.COUNTER, "events")
            .family("x_override_info", Exposition.Type.INFO, "override");
    e.sample("x_state", 1, "breaker", "a:b", "state", "open");
    e.sample("x_events_total", 3, "breaker", "a:b");
    e.sample("x_state", 0, "breaker", "c:d", "state", "open");
    e.sample("x_override_info", 1, "actor", "al\"ice\\\nx");
    e.sample("x_events_total", 0.25, "breaker", "c:d");
    return e;
  }

  @Test
  @DisplayName("text: each family's samples together after HELP and TYPE, info typed gauge")
  void text() {
    assertThat(sample().render(false))
        .isEqualTo(
            "# HELP x_state a state\\nwith \"quotes\" and \\\\\n"
                + "# TYPE x_state gauge\n"
                + "x_state{breaker=\"a:b\",state=\"open\"} 1\n"
                + "x_state{breaker=\"c:d\",state=\"open\"} 0\n"
                + "# HELP x_events_total events\n"
                + "# TYPE x_events_total counter\n"
                + "x_events_total{breaker=\"a:b\"} 3\n"
                + "x_events_total{breaker=\"c:d\"} 0.25\n"
                + "# HELP x_override_info override\n"
                + "# TYPE x_override_info gauge\n"
                + "x_override_info{actor=\"al\\\"ice\\\\\\nx\"} 1\n");
  }

  @Test
  @DisplayName("OpenMetrics: counter and info families named without their suffix, # EOF")
  void openMetrics() {
    String om = sample().render(true);
    assertThat(om)
        .contains("# HELP x_state a state\\nwith \\\"quotes\\\" and \\\\\n")
        .contains("# TYPE x_events counter\nx_events_total{breaker=\"a:b\"} 3\n")
        .contains("# TYPE x_override info\nx_override_info{actor=")
        .endsWith("# EOF\n");
    assertThat(Exposition.wantsOpenMetrics("application/openmetrics-text;version=1.0.0,*/*"))
        .isTrue();
    assertThat(Exposition.wantsOpenMetrics("text/plain;version=0.0.4")).isFalse();
    assertThat(Exposition.wantsOpenMetrics(null)).isFalse();
  }

  @Test
  @DisplayName("a counter without _total, an info without _info, an undeclared family: refused")
  void names() {
    assertThatThrownBy(() -> new Exposition().family("x", Exposition.Type.COUNTER, ""))
        .hasMessageContaining("_total");
    assertThatThrownBy(() -> new Exposition().family("x", Exposition.Type.INFO, ""))
        .hasMessageContaining("_info");
    assertThatThrownBy(() -> new Exposition().sample("x", 1)).hasMessageContaining("undeclared");
    assertThat(Exposition.number(Double.NaN)).isEqualTo("NaN");
    assertThat(Exposition.number(1e20)).isEqualTo("1.0E20");
    assertThat(Exposition.number(-2)).isEqualTo("-2");
  }

  @Test
  @DisplayName("every documented family declares; names follow the type rules")
  void families() {
    Exposition e = FleetMetrics.declared();
    assertThat(e.names()).hasSize(FleetMetrics.FAMILIES.size()).doesNotHaveDuplicates();
    assertThat(e.names()).allMatch(n -> n.startsWith("breakerctl_"));
  }
}
