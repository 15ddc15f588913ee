package io.breakerctl.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.State;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What a node re-asserts when Redis answers behind its view (lost or rewound state). */
@DisplayName("SharedView.lostIn: a node never trades what it knows for less")
class SharedViewTest {
  private static final String E = "1765000000000000";
  private static final String LATER = "1765000000000001";
  private static final long NOW = 1_000_000;

  private static SharedView open(String epoch, long gen, long until) {
    return view(State.OPEN, until, null, 0, gen, epoch);
  }

  private static SharedView view(
      State stored, long openUntil, State override, long overrideUntil, long gen, String epoch) {
    return new SharedView(
        stored,
        openUntil,
        1_000,
        override,
        overrideUntil,
        SharedView.OverrideOrigin.UNKNOWN,
        null,
        gen,
        epoch,
        0,
        NOW);
  }

  @Test
  @DisplayName("an older window of the same epoch at a lower generation is lost: OPEN goes back")
  void olderWindowSameEpoch() {
    SharedView mine = open(E, 3, NOW + 4_000);
    assertThat(mine.lostIn(open(E, 1, NOW - 1_000), NOW)).isEqualTo(State.OPEN);
    assertThat(mine.lostIn(view(State.HALF_OPEN, NOW - 1_000, null, 0, 2, E), NOW))
        .isEqualTo(State.OPEN);
    assertThat(mine.lostIn(view(State.CLOSED, 0, null, 0, 0, E), NOW)).isEqualTo(State.OPEN);
  }

  @Test
  @DisplayName("an older incarnation (a smaller epoch) is a rewind too")
  void olderEpoch() {
    SharedView mine = open(LATER, 1, NOW + 4_000);
    assertThat(mine.lostIn(open(E, 5, NOW + 1_000), NOW)).isEqualTo(State.OPEN);
  }

  @Test
  @DisplayName("the same or a newer state is adopted, never overwritten")
  void notLost() {
    SharedView mine = open(E, 3, NOW + 4_000);
    assertThat(mine.lostIn(open(E, 3, NOW + 4_000), NOW)).as("the same").isNull();
    assertThat(mine.lostIn(open(E, 4, NOW + 8_000), NOW)).as("a higher generation").isNull();
    assertThat(mine.lostIn(open(E, 2, NOW + 9_000), NOW)).as("a later window").isNull();
    assertThat(mine.lostIn(open(LATER, 1, NOW + 1_000), NOW))
        .as("a newer incarnation that is open")
        .isNull();
    assertThat(view(State.CLOSED, 0, null, 0, 5, E).lostIn(open(E, 3, NOW + 1_000), NOW))
        .as("a CLOSED view holds nothing to put back")
        .isNull();
  }

  @Test
  @DisplayName("an override: a shorter one of a rewound Redis is lost, the same one is not")
  void overrides() {
    SharedView mine = view(State.CLOSED, 0, State.FORCED_OPEN, NOW + 60_000, 4, E);
    assertThat(mine.lostIn(view(State.CLOSED, 0, State.FORCED_OPEN, NOW + 10_000, 3, E), NOW))
        .isEqualTo(State.FORCED_OPEN);
    assertThat(mine.lostIn(view(State.CLOSED, 0, null, 0, 2, E), NOW)).isEqualTo(State.FORCED_OPEN);
    assertThat(mine.lostIn(view(State.CLOSED, 0, State.FORCED_OPEN, NOW + 60_000, 3, E), NOW))
        .isNull();
    assertThat(mine.lostIn(view(State.CLOSED, 0, State.FORCED_OPEN, NOW + 10_000, 5, E), NOW))
        .as("the operator shortened it since")
        .isNull();
  }
}
