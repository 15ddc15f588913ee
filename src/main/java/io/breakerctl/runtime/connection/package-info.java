/**
 * Connection strings the runtime, the control plane and the CLI share: Redis and MongoDB URIs
 * parsed and checked ({@link io.breakerctl.runtime.connection.ConnectionUris}) and their secrets
 * redacted wherever one is shown or logged ({@link io.breakerctl.runtime.connection.Redaction}). A
 * package of its own, below the runtime, the store adapter and the control plane, so that each of
 * them reads a URI without importing another.
 */
package io.breakerctl.runtime.connection;
