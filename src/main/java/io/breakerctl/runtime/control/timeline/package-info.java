/**
 * Reading history as one timeline: {@link io.breakerctl.runtime.control.timeline.Timeline} merges
 * transitions (MongoDB {@code history} and the stream tail Redis still holds, read by {@link
 * io.breakerctl.runtime.control.timeline.StreamTail}), audit records, policy versions, notes and
 * gaps into one ordered, stably paged sequence of {@link
 * io.breakerctl.runtime.control.timeline.TimelineEntry}s. The order and the cursor are {@link
 * io.breakerctl.runtime.control.timeline.TimelineKey}: (Redis time, epoch, stream id, entry id),
 * which never changes once an entry exists, so paging stays stable while the forwarder moves events
 * from Redis into MongoDB. The history forwarder, replay and restore use the same order and
 * conversions ({@link io.breakerctl.runtime.control.timeline.TimelineEntries}).
 */
package io.breakerctl.runtime.control.timeline;
