package io.breakerctl.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A 3-master Redis Cluster of {@link RedisServerProcess} nodes, formed from Java with {@code
 * CLUSTER ADDSLOTS} and {@code CLUSTER MEET} only (and {@code CLUSTER REPLICATE} for the variant
 * with one replica per master), so it works on Redis 6.2 and 7.x without redis-cli. Node {@code i}
 * owns the {@code i}-th third of the 16384 slots.
 */
public final class RedisClusterProcess implements AutoCloseable {

  /** Number of hash slots in Redis Cluster. */
  public static final int SLOTS = 16384;

  private static final int MASTERS = 3;
  private static final Duration FORM_TIMEOUT = Duration.ofSeconds(15);

  private final List<RedisServerProcess> nodes;
  private final List<RedisServerProcess> replicas;

  private RedisClusterProcess(List<RedisServerProcess> nodes) {
    this(nodes, List.of());
  }

  private RedisClusterProcess(List<RedisServerProcess> nodes, List<RedisServerProcess> replicas) {
    this.nodes = List.copyOf(nodes);
    this.replicas = List.copyOf(replicas);
  }

  /**
   * Starts three masters and one replica of each (replica {@code i} of master {@code i}), with a
   * short {@code cluster-node-timeout} so a killed master's replica is promoted within a few
   * seconds; waits until every replica's link to its master is up.
   */
  public static RedisClusterProcess startWithReplicas(RedisBinary binary, Duration nodeTimeout) {
    List<RedisServerProcess> all = new ArrayList<>();
    try {
      for (int i = 0; i < 2 * MASTERS; i++) {
        all.add(
            RedisServerProcess.builder(binary)
                .clusterBusPort()
                .args(
                    "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis()))
                .start());
      }
      RedisClusterProcess cluster =
          new RedisClusterProcess(all.subList(0, MASTERS), all.subList(MASTERS, 2 * MASTERS));
      cluster.form();
      RedisServerProcess first = all.get(0);
      for (RedisServerProcess r : cluster.replicas) {
        first.call("CLUSTER", "MEET", r.host(), Integer.toString(r.port()));
      }
      cluster.awaitKnown(2 * MASTERS);
      for (int i = 0; i < MASTERS; i++) {
        String masterId = String.valueOf(cluster.nodes.get(i).call("CLUSTER", "MYID")).trim();
        cluster.replicas.get(i).call("CLUSTER", "REPLICATE", masterId);
      }
      cluster.awaitReplicasLinked();
      return cluster;
    } catch (RuntimeException e) {
      for (RedisServerProcess node : all) {
        node.close();
      }
      throw e;
    }
  }

  /** The replicas (empty without them); replica {@code i} replicates master {@code i}. */
  public List<RedisServerProcess> replicas() {
    return replicas;
  }

  private void awaitKnown(int count) {
    await(
        "every node knows " + count + " nodes",
        () -> {
          for (RedisServerProcess n : all()) {
            if (!String.valueOf(n.call("CLUSTER", "INFO"))
                .contains("cluster_known_nodes:" + count)) {
              return false;
            }
          }
          return true;
        });
  }

  private void awaitReplicasLinked() {
    await(
        "every replica linked to its master",
        () -> {
          for (RedisServerProcess r : replicas) {
            if (!String.valueOf(r.call("INFO", "replication")).contains("master_link_status:up")) {
              return false;
            }
          }
          return true;
        });
  }

  private List<RedisServerProcess> all() {
    List<RedisServerProcess> out = new ArrayList<>(nodes);
    out.addAll(replicas);
    return out;
  }

  private static void await(String what, java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + FORM_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting until " + what, e);
      }
    }
    throw new IllegalStateException("timed out waiting until " + what);
  }

  /** Starts three cluster-enabled nodes on {@code binary}, forms the cluster and waits for ok. */
  public static RedisClusterProcess start(RedisBinary binary) {
    List<RedisServerProcess> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < MASTERS; i++) {
        nodes.add(
            RedisServerProcess.builder(binary)
                .clusterBusPort()
                .args(
                    "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", "2000")
                .start());
      }
      RedisClusterProcess cluster = new RedisClusterProcess(nodes);
      cluster.form();
      return cluster;
    } catch (RuntimeException e) {
      for (RedisServerProcess node : nodes) {
        node.close();
      }
      throw e;
    }
  }

  /** The nodes; all are masters, node {@code i} owning slots {@link #slotRange(int)}. */
  public List<RedisServerProcess> nodes() {
    return nodes;
  }

  /** One {@code redis://127.0.0.1:port} URI per node. */
  public List<String> seedUris() {
    return nodes.stream().map(RedisServerProcess::uri).collect(Collectors.toList());
  }

  /** The seed URIs joined with commas. */
  public String uri() {
    return String.join(",", seedUris());
  }

  /** The node that owns {@code key}'s hash slot. */
  public RedisServerProcess masterFor(String key) {
    int slot = slot(key);
    for (int i = 0; i < nodes.size(); i++) {
      int[] range = slotRange(i);
      if (slot >= range[0] && slot <= range[1]) {
        return nodes.get(i);
      }
    }
    throw new IllegalStateException("no node for slot " + slot);
  }

  /** {@code FLUSHALL} on every master. */
  public void flushAll() {
    for (RedisServerProcess node : nodes) {
      node.flushAll();
    }
  }

  /** Stops every node and deletes their directories. */
  @Override
  public void close() {
    RuntimeException first = null;
    for (RedisServerProcess node : all()) {
      try {
        node.close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public String toString() {
    return "cluster" + seedUris();
  }

  /**
   * The hash slot of {@code key} (CRC16/XMODEM of the key or its {@code {hash tag}}, mod 16384).
   */
  public static int slot(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    int start = 0;
    int end = bytes.length;
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '{') {
        for (int j = i + 1; j < bytes.length; j++) {
          if (bytes[j] == '}') {
            if (j > i + 1) {
              start = i + 1;
              end = j;
            }
            break;
          }
        }
        break;
      }
    }
    int crc = 0;
    for (int i = start; i < end; i++) {
      crc ^= (bytes[i] & 0xff) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
    }
    return (crc & 0xffff) % SLOTS;
  }

  /** Inclusive {@code [first, last]} slots owned by node {@code index}. */
  static int[] slotRange(int index) {
    int per = SLOTS / MASTERS;
    int first = index * per;
    int last = index == MASTERS - 1 ? SLOTS - 1 : first + per - 1;
    return new int[] {first, last};
  }

  private void form() {
    for (int i = 0; i < nodes.size(); i++) {
      int[] range = slotRange(i);
      for (int from = range[0]; from <= range[1]; from += 1000) {
        int to = Math.min(range[1], from + 999);
        List<String> cmd = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
        for (int s = from; s <= to; s++) {
          cmd.add(Integer.toString(s));
        }
        nodes.get(i).call(cmd.toArray(new String[0]));
      }
    }
    RedisServerProcess first = nodes.get(0);
    for (RedisServerProcess other : nodes.subList(1, nodes.size())) {
      first.call("CLUSTER", "MEET", other.host(), Integer.toString(other.port()));
    }
    awaitHealthy();
  }

  private void awaitHealthy() {
    long deadline = System.nanoTime() + FORM_TIMEOUT.toNanos();
    String lastInfo = "";
    while (System.nanoTime() < deadline) {
      boolean allOk = true;
      for (RedisServerProcess node : nodes) {
        String info = String.valueOf(node.call("CLUSTER", "INFO"));
        lastInfo = node + ":\n" + info;
        if (!(info.contains("cluster_state:ok")
            && info.contains("cluster_slots_assigned:" + SLOTS)
            && info.contains("cluster_known_nodes:" + MASTERS)
            && info.contains("cluster_size:" + MASTERS))) {
          allOk = false;
          break;
        }
      }
      if (allOk) {
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while forming cluster", e);
      }
    }
    throw new IllegalStateException(
        "cluster did not reach cluster_state:ok with "
            + MASTERS
            + " masters within "
            + FORM_TIMEOUT
            + "; last CLUSTER INFO from "
            + lastInfo);
  }
}
