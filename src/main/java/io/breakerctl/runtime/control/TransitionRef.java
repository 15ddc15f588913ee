package io.breakerctl.runtime.control;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Instant;
import java.util.Optional;
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

  /** The reference as stored inside other documents: {@code {breakerId, epoch, streamId}}. */
  public Document toDocument() {
    return new Document("breakerId", breakerId.toString())
        .append("epoch", epoch)
        .append("streamId", streamId);
  }

  /** The reference {@link #toDocument()} stored; null for null. */
  public static TransitionRef fromDocument(Document d) {
    return d == null
        ? null
        : new TransitionRef(
            BreakerId.parse(d.getString("breakerId")),
            d.getString("epoch"),
            d.getString("streamId"));
  }

  /** The Redis time in a stream id ({@code <ms>-<seq>}), if it is one. */
  public static Optional<Instant> redisTime(String streamId) {
    int dash = streamId.indexOf('-');
    if (dash <= 0) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.ofEpochMilli(Long.parseLong(streamId.substring(0, dash))));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
