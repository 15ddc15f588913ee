package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.cli.output.Printable;
import io.breakerctl.cli.output.Style;
import io.breakerctl.cli.output.Table;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("tables: ids never cut, control characters escaped")
class TableTest {

  private static String print(Table t, String columns) {
    StringWriter out = new StringWriter();
    t.print(new PrintWriter(out), Style.of(false, false, columns, Clock.systemUTC()), true);
    return out.toString();
  }

  @Test
  @DisplayName("at 40 columns the flexible columns shrink and the id stays whole")
  void narrow() {
    String id = "a-long-caller-name:a-long-dependency-name:scope";
    Table t = new Table("ID", "STATE", "OVERRIDE").flexible(2);
    t.row(null, id, "FORCED_OPEN", "alice, until 2026-12-01T10:00:00.000Z");
    String text = print(t, "40");
    assertThat(text).contains(id).contains("...");
    for (String columns : new String[] {"0", "1", "abc"}) {
      assertThat(print(t, columns)).contains(id);
    }
  }

  @Test
  @DisplayName("to fit: quiet columns go first, then droppable ones in order, then cells shorten")
  void fitting() {
    Table t =
        new Table("ID", "STATE", "OPEN UNTIL", "LEASES", "NODES", "OVERRIDE")
            .flexible(4, 5)
            .droppable(3, 4, 2);
    t.row(null, "pay:ledger", "FORCED_OPEN", "-", "1", "3 (1 disagrees)", "until in 30m by alice");
    t.row(null, "claims:members", "CLOSED", "-", "-", "3", "-");
    String wide = print(t, "200");
    assertThat(wide.lines().findFirst().orElseThrow()).contains("OPEN UNTIL", "LEASES", "NODES");

    String quiet = print(t, "80");
    assertThat(quiet.lines().findFirst().orElseThrow())
        .as("OPEN UNTIL says nothing: it goes before anything is dropped or cut")
        .doesNotContain("OPEN UNTIL")
        .contains("LEASES", "NODES");

    String narrow = print(t, "50");
    assertThat(narrow.lines().findFirst().orElseThrow())
        .as("LEASES then NODES are dropped before the override is cut")
        .doesNotContain("LEASES")
        .doesNotContain("NODES");
    assertThat(narrow).contains("until in 30m by alice");
    assertThat(narrow.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(50));

    String tight = print(t, "40");
    assertThat(tight).contains("pay:ledger", "until in").contains("...");
    assertThat(tight.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(40));
  }

  @Test
  @DisplayName("a newline or an escape sequence in a cell is shown escaped on its own row")
  void escaped() {
    Table t = new Table("ID", "REASON");
    t.row(null, "a:b", "fine\nfake:row  CLOSED \u001b[2J");
    String text = print(t, null);
    assertThat(text.lines()).hasSize(2);
    assertThat(text).contains("fine\\nfake:row  CLOSED \\x1b[2J").doesNotContain("\u001b");
    assertThat(Printable.escape("bidi\u202eok\ttab")).isEqualTo("bidi\\u202eok\\ttab");
    assertThat(Printable.escape("plain ✓")).isEqualTo("plain ✓");
  }
}
