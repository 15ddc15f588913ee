package io.breakerctl.runtime.control.policy;

import java.util.List;
import java.util.stream.Collectors;

/** Policy documents failed validation; nothing was written. */
public final class InvalidPolicyException extends IllegalArgumentException {

  private final transient List<PolicyProblem> problems;

  /** An exception listing {@code problems}, one per line. */
  public InvalidPolicyException(List<PolicyProblem> problems) {
    super(
        problems.size()
            + " problem"
            + (problems.size() == 1 ? "" : "s")
            + " in policy documents, nothing written:\n"
            + problems.stream().map(PolicyProblem::toString).collect(Collectors.joining("\n")));
    this.problems = List.copyOf(problems);
  }

  /** Every problem found. */
  public List<PolicyProblem> problems() {
    return problems;
  }
}
