package io.breakerctl.runtime.model;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Parses the wire codes of the runtime's vocabulary ({@link AdmissionReason}, {@link
 * RecordOutcome}, {@link OverrideOutcome}, {@link ReassertOutcome}, {@link WarmOutcome}): the code
 * is the constant's name, stable, what the Lua scripts return and JSON output carries.
 */
public final class WireCodes {
  private WireCodes() {}

  /**
   * The constant of {@code type} whose code is {@code code}.
   *
   * @param what the vocabulary's name in the error ("admission reason")
   * @throws IllegalArgumentException naming the valid codes
   */
  public static <E extends Enum<E>> E parse(Class<E> type, String what, String code) {
    if (code != null) {
      for (E e : type.getEnumConstants()) {
        if (e.name().equals(code)) {
          return e;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown "
            + what
            + " '"
            + code
            + "' (expected one of "
            + Arrays.stream(type.getEnumConstants())
                .map(Enum::name)
                .collect(Collectors.joining(", "))
            + ")");
  }
}
