package io.breakerctl.cli;

import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.audit.AuditSpool;
import io.breakerctl.runtime.control.override.BreakerOverrides;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.store.FleetStore;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Connections on demand: a command that needs no server (config, version, help) never opens one.
 * Every connection is bounded by the resolved {@code --timeout}; closed when the command ends.
 */
public final class ServiceFactory implements AutoCloseable {

  private final Supplier<Settings> settingsSupplier;
  private final Environment env;
  private final FleetStores stores;
  private Settings settings;
  private FleetStore redis;
  private ControlDatabase control;

  private ServiceFactory(Supplier<Settings> settings, Environment env, FleetStores stores) {
    this.settingsSupplier = settings;
    this.env = env;
    this.stores = stores;
  }

  /**
   * New connections on demand for the flags {@code flags} gives when the settings are first needed
   * (resolved in {@code env}), the store connected by {@code stores}; the caller closes them.
   */
  public static ServiceFactory of(
      Supplier<Settings.Flags> flags, Environment env, FleetStores stores) {
    return new ServiceFactory(() -> Settings.resolve(flags.get(), env), env, stores);
  }

  /** The resolved settings (resolving reads the config file, never the network). */
  public Settings settings() {
    if (settings == null) {
      settings = settingsSupplier.get();
    }
    return settings;
  }

  /** The environment. */
  public Environment env() {
    return env;
  }

  /** The Redis store, connected on first use. */
  public FleetStore redis() {
    if (redis == null) {
      Settings s = settings();
      s.requireRedisIdentity();
      redis = stores.connect(FleetStores.Target.of(s));
    }
    return redis;
  }

  /** The control plane; the client contacts MongoDB on its first operation. */
  public ControlDatabase control() {
    if (control == null) {
      // one wait for an unreachable MongoDB per command, not one per step (issue 42)
      control = control(settings().timeout()).failFast();
    }
    return control;
  }

  /** A separate control-plane client with its own timeout (the caller closes it). */
  public ControlDatabase control(Duration timeout) {
    Settings s = settings();
    return ControlDatabase.connect(ControlConfig.builder().uri(s.mongo()).timeout(timeout).build());
  }

  /** Audited overrides on {@link #redis()} and {@code control}. */
  public BreakerOverrides overrides(ControlDatabase control) {
    return new BreakerOverrides(redis(), control, env.clock()).spoolingTo(auditSpool());
  }

  /**
   * Where this CLI keeps the audit records MongoDB could not take: {@code
   * $XDG_STATE_HOME/breakerctl/audit-spool/<mongo>} (else under {@code ~/.local/state}), one
   * directory per MongoDB (a digest of its URI), so a record is delivered only to the MongoDB it
   * was meant for.
   */
  public AuditSpool auditSpool() {
    return new AuditSpool(
        env.stateHome().resolve("audit-spool").resolve(digest(settings().mongo())));
  }

  private static String digest(String uri) {
    try {
      byte[] d =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(uri.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(d, 0, 8);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The policy workflow on {@link #control()}, warming into {@link #redis()} when {@code warm}. */
  public PolicyControl policies(boolean warm) {
    return new PolicyControl(control(), warm ? redis() : null, env.clock());
  }

  @Override
  public void close() {
    if (redis != null) {
      redis.close();
      redis = null;
    }
    if (control != null) {
      control.close();
      control = null;
    }
  }
}
