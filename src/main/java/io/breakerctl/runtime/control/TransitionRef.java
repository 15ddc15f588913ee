package io.breakerctl.runtime.control;

import io.breakerctl.runtime.model.BreakerId;
import org.bson.Document;

/**
 * The identity of one transition event: (breaker id, epoch, stream id).
 *
 * @param breakerId the breaker
 * @param epoch the incarnation of its keys
 * @param streamId the event's stream id
 */
public record TransitionRef(BreakerId breakerId, String epoch, String streamId) {

  /** The history document id: {@code breakerId|epoch|streamId}. */
  public String key() {
    return breakerId + "|" + epoch + "|" + streamId;
  }

  Document toDocument() {
    return new Document("breakerId", breakerId.toString())
        .append("epoch", epoch)
        .append("streamId", streamId);
  }

  static TransitionRef fromDocument(Document d) {
    return d == null
        ? null
        : new TransitionRef(
            BreakerId.parse(d.getString("breakerId")),
            d.getString("epoch"),
            d.getString("streamId"));
  }
}
