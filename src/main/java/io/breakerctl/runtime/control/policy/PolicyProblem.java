package io.breakerctl.runtime.control.policy;

/**
 * One problem found in a set of policy documents, with its location.
 *
 * @param source the file (or other source name) it was found in
 * @param document the 1-based index of the document within the source, 0 for the whole source
 * @param line the 1-based line of the problem (a syntax error, or the key a field problem names), 0
 *     when unknown or about the whole source
 * @param column the 1-based column of a syntax error, 0 when unknown
 * @param message what is wrong, starting with the field path and quoting the bad value (e.g. {@code
 *     spec.failureThreshold must be >= 1 but was 0})
 */
public record PolicyProblem(String source, int document, int line, int column, String message) {

  /**
   * The problem as one line: {@code policies/claims.yaml: document 2: spec.failureThreshold must be
   * >= 1 but was 0}.
   */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(source).append(": ");
    if (document > 0) {
      s.append("document ").append(document).append(": ");
    }
    if (line > 0) {
      s.append("line ").append(line);
      if (column > 0) {
        s.append(", column ").append(column);
      }
      s.append(": ");
    }
    return s.append(message).toString();
  }
}
