package io.breakerctl.runtime.store;

/**
 * The answer of a write ({@link StoreFutures#await}): the script's own, or, when that was lost and
 * a read-back found the change landed, one rebuilt from what Redis holds.
 *
 * @param value the write's answer
 * @param lostAnswer why the write's own answer was lost (the change landed all the same), empty
 *     when it answered
 */
public record Written<T>(T value, String lostAnswer) {

  /** Whether the answer came from a read-back after the write's own answer was lost. */
  public boolean readBack() {
    return !lostAnswer.isEmpty();
  }
}
