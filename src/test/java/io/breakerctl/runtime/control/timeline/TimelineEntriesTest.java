package io.breakerctl.runtime.control.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Date;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Timeline entries read stored values as an operator reads them")
class TimelineEntriesTest {

  @Test
  @DisplayName("an audit's nested spec, list and date: JSON and an ISO instant, never toString()")
  void auditValuesAsText() {
    Date at = Date.from(java.time.Instant.parse("2026-12-06T10:00:00Z"));
    Document audit =
        new Document("correlationId", "c-1")
            .append("action", "APPLY")
            .append("target", "orders")
            .append("actor", "ci")
            .append("reason", "r")
            .append("at", at)
            .append(
                "after",
                new Document("version", 4L)
                    .append("spec", new Document("failureThreshold", 7).append("open", "PT30S"))
                    .append("tags", List.of("a", "b"))
                    .append("appliedAt", at));

    TimelineEntry e = TimelineEntries.fromAudit(audit);

    assertThat(e.counts())
        .containsEntry("version", "4")
        .containsEntry("spec", "{\"failureThreshold\": 7, \"open\": \"PT30S\"}")
        .containsEntry("tags", "[\"a\", \"b\"]")
        .containsEntry("appliedAt", "2026-12-06T10:00:00Z");
    assertThat(String.join(" ", e.counts().values())).doesNotContain("Document{", "UTC 2026");
  }
}
