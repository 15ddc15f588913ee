package io.breakerctl.cli;

import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/**
 * Parses a policy version number ({@code --revision}, {@code --from}, {@code --to}): a whole number
 * of at least 1, as versions are counted. Anything else is a usage error naming the value (exit 2)
 * before a backend is reached, never a "not found" (exit 7) from MongoDB.
 */
public final class PolicyVersionNumbers implements ITypeConverter<Long> {
  @Override
  public Long convert(String value) {
    long v;
    try {
      v = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new CommandLine.TypeConversionException(
          "'" + Inputs.cut(value) + "' is not a policy version (a whole number from 1)");
    }
    if (v < 1) {
      throw new CommandLine.TypeConversionException(
          "'" + Inputs.cut(value) + "' is not a policy version: versions start at 1");
    }
    return v;
  }
}
