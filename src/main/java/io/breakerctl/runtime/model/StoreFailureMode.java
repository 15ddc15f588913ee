package io.breakerctl.runtime.model;

/** What a node does with a breaker while the shared store (Redis) is unreachable. */
public enum StoreFailureMode {
  /** Default: fall back to the node's own local state machine. */
  LOCAL_ONLY,
  /** Keep the last shared state seen, then behave as LOCAL_ONLY once it is stale. */
  LAST_KNOWN,
  /** Admit every call while the store is down. */
  ALLOW_ALL
}
