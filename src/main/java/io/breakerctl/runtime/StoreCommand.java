package io.breakerctl.runtime;

import io.breakerctl.runtime.store.BreakerStore;
import java.util.Locale;

/**
 * The kinds of store command a node sends, one per {@link BreakerStore} operation (a record of
 * batched successes is a {@link #FLUSH}): the {@code command} tag of the {@code breakerctl.redis.*}
 * meters, a fixed set, so bounded cardinality.
 */
public enum StoreCommand {
  /** {@code acquire.lua}: a call's or a probe's permission. */
  ACQUIRE,
  /** {@code record.lua} with failures, a slow or timed call or a probe's result. */
  RECORD,
  /** {@code record.lua} with batched successes only (and the heartbeat): the batched flush. */
  FLUSH,
  /** {@code renew.lua}: a running probe's lease kept alive. */
  RENEW,
  /** {@code override.lua}. */
  OVERRIDE,
  /** {@code reassert.lua}: a trip or an override put back, a degraded trip published. */
  REASSERT,
  /** {@code warm.lua}: a resolved policy version warmed. */
  WARM,
  /** A breaker's state fields read in full (a refresh, a reconcile, a first read). */
  STATE,
  /** The change stamps of many breakers (the sweep for missed changes). */
  STAMPS,
  /** The canary of every master (the periodic check for data lost without a message). */
  CANARY,
  /** A health check (the degradation's confirmation, the recovery check). */
  PING,
  /** {@code alive.lua}: the node's liveness for the fleet view, once per heartbeat interval. */
  ALIVE,
  /** The scripts' client path run once at connect. */
  WARM_UP,
  /** Hot fallback data: an approved snapshot's copy read, written or removed. */
  FALLBACK_DATA;

  private final String code = name().toLowerCase(Locale.ROOT);

  /** The tag value: the name in lower case ({@code flush}, {@code warm_up}). */
  public String code() {
    return code;
  }
}
