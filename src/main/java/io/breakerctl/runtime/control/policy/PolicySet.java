package io.breakerctl.runtime.control.policy;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The result of reading policy files: the valid documents and every problem found. A set with any
 * problem must not be applied.
 *
 * @param documents the documents that passed validation, in file and document order
 * @param problems every problem, in file and document order
 */
public record PolicySet(List<PolicyDocument> documents, List<PolicyProblem> problems) {

  /** Copies the lists. */
  public PolicySet {
    documents = List.copyOf(documents);
    problems = List.copyOf(problems);
  }

  /** Whether no problem was found. */
  public boolean isValid() {
    return problems.isEmpty();
  }

  /**
   * Throws when any problem was found.
   *
   * @throws InvalidPolicyException listing every problem
   */
  public PolicySet requireValid() {
    if (!isValid()) {
      throw new InvalidPolicyException(problems);
    }
    return this;
  }

  /** Every problem, one per line. */
  public String report() {
    return problems.stream().map(PolicyProblem::toString).collect(Collectors.joining("\n"));
  }
}
