package io.breakerctl.runtime.conformance;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.NodeHeartbeat;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@link ConformanceSuite} needs from a store beyond the {@link BreakerStore} interface: the
 * store's nodes, its time, and the faults and raw reads a case uses. One implementation per store
 * (the in-process store on a hand-moved clock, the scripts on a real redis-server); a client in
 * another language implements the same hooks for its own suite (see {@code
 * src/docs/conformance.md}).
 *
 * <p>Everything a case asserts comes from the store's answers; the hooks only move time, lose data
 * or read what the interface cannot show (the keys' expiry).
 */
public interface StoreUnderTest extends AutoCloseable {

  /** A capability a case may need and a store may lack. */
  enum Capability {
    /** {@link #loseAllData()}: a failover to an empty replica. */
    LOSE_ALL_DATA,
    /** {@link #keyExpiry()}: the expiry of every key of a breaker. */
    KEY_EXPIRY
  }

  /** A label for reports ("in-process", "redis 6.2 standalone", ...). */
  String name();

  /**
   * The store as node {@code index} (0, 1, 2, ...) reaches it: distinct connections to the same
   * data where the store has connections, else the same store. Cases name the node that calls
   * ({@code node-<index>}) in every command, so owners differ either way.
   */
  BreakerStore node(int index);

  /**
   * The time unit every policy duration of a case is a multiple of: a store on a hand-moved clock
   * may take any; a store on real time takes one long enough for a step and a time read to fit well
   * inside a few units (a case that proves itself late is repeated with the unit doubled).
   */
  Duration unit();

  /**
   * Returns once the store's time (what its scripts decide with, as {@link
   * BreakerStore#state(BreakerId)} reports it for {@code id}) is at least {@code storeMillis}: a
   * hand-moved clock is moved, a real one waited for (bounded).
   */
  void awaitStoreTime(BreakerId id, long storeMillis);

  /** Why this store cannot offer {@code c}, or empty when it can. */
  Optional<String> unsupported(Capability c);

  /**
   * Loses every key of every breaker, connections staying up, as a failover to a replica that never
   * saw the writes does (Redis: FLUSHALL on every master).
   */
  void loseAllData();

  /** The expiry reads of {@link Capability#KEY_EXPIRY}. */
  KeyExpiry keyExpiry();

  /**
   * The nodes' reports on {@code id} (record's heartbeats) as the fleet view reads them: the read
   * the {@link BreakerStore} interface leaves to the operators' port (Redis: {@code
   * FleetStore.snapshot}).
   */
  List<NodeHeartbeat> reports(BreakerId id);

  /** Closes what {@link #node} opened. */
  @Override
  void close();

  /** The keys' expiry: a store that keeps breakers in keys that expire when idle. */
  interface KeyExpiry {
    /** A node's store whose writes give idle keys {@link #idleTtl()} (short: at most seconds). */
    BreakerStore store();

    /** The idle expiry {@link #store()} writes. */
    Duration idleTtl();

    /**
     * A node's store of a deployment that forwards its history (a control plane) whose forwarder is
     * stopped: it writes {@link #idleTtl()} and declares the history hold {@link #hold()}. {@link
     * #store()} declares no destination (a deployment without a control plane).
     */
    BreakerStore heldStore();

    /** The history hold {@link #heldStore()} declares (short: seconds). */
    Duration hold();

    /**
     * Marks every event of {@code id} as stored durably (what the history forwarder does), so only
     * the breaker's state and override can hold its keys.
     */
    void forwardAll(BreakerId id);

    /** Every key of {@code id} with its remaining expiry, read at one store time. */
    KeyTtls ttls(BreakerId id);
  }

  /**
   * The remaining expiry of a breaker's keys at one instant.
   *
   * @param storeTimeMillis the store's time of the read
   * @param pttlMillis key -> remaining ms, -1 for no expiry, -2 for no such key
   */
  record KeyTtls(long storeTimeMillis, Map<String, Long> pttlMillis) {}
}
