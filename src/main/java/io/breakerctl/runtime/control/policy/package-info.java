/**
 * Policy documents without I/O side effects: ids, parsing and validation of YAML/JSON files, the
 * canonical spec with field-by-field diffs, and the resolution rule.
 *
 * <p>A document is {@code {apiVersion: breakerctl/v1, kind: Policy, metadata: {id, owner, labels,
 * expiresAt}, spec: {...}}}; only {@code metadata.id} is required and every spec field defaults as
 * {@link io.breakerctl.runtime.model.Policy} documents. {@link
 * io.breakerctl.runtime.control.policy.PolicyParser} validates the parsed tree and reports every
 * problem with file, document index, field path and the bad value.
 */
package io.breakerctl.runtime.control.policy;
