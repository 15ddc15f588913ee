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
