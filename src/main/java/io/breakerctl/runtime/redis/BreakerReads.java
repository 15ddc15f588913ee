package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.NodeCallCounts;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.NodeLiveness;
import io.breakerctl.runtime.store.ProbeLease;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.StreamMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The reads behind the operators' port ({@link RedisFleetStore}): everything stored about a breaker
 * (its hash, leases, newest events, the live nodes' reports, the Redis time), its event stream, and
 * the fleet's liveness and call rates. No script: a read-only ACL user can run them all.
 */
final class BreakerReads {
  private final RedisConnection conn;

  BreakerReads(RedisConnection conn) {
    this.conn = conn;
  }

  /**
   * The fleet's call rates per breaker ({@link FleetCallRates}): the counts the live nodes sent
   * with their last beat. Two reads for the whole fleet: the liveness set, then one {@code MGET} of
   * its nodes' counts (all in one slot). A node's counts expire with its liveness and are deleted
   * when it leaves, so the counts found are the live nodes'.
   */
  CompletableFuture<FleetCallRates> callRates() {
    return liveness()
        .thenCompose(
            live -> {
              List<String> nodes = live.members();
              if (nodes.isEmpty()) {
                return CompletableFuture.completedFuture(FleetCallRates.NONE);
              }
              String[] k = nodes.stream().map(conn.keys::calls).toArray(String[]::new);
              return RedisConnection.guard(
                  "read the nodes' call counts",
                  conn.commands
                      .mget(k)
                      .thenApply(
                          kvs -> {
                            Map<String, NodeCallCounts> byNode = new LinkedHashMap<>();
                            for (int i = 0; i < kvs.size(); i++) {
                              String json = kvs.get(i).getValueOrElse(null);
                              if (json != null) {
                                byNode.put(nodes.get(i), NodeCallCounts.parse(json));
                              }
                            }
                            return new FleetCallRates(byNode);
                          }));
            });
  }

  /**
   * The fleet's liveness: every node's alive-until time (Redis ms) and its current session, see
   * {@link NodeLiveness}. Two reads of one slot, sent together.
   */
  CompletableFuture<NodeLiveness> liveness() {
    CompletableFuture<Map<String, String>> sessions =
        conn.commands.hgetall(conn.keys.sessions()).toCompletableFuture();
    return RedisConnection.guard(
        "read the nodes' liveness",
        conn.commands
            .zrangeWithScores(conn.keys.alive(), 0, -1)
            .thenCombine(
                sessions,
                (all, current) -> {
                  Map<String, Long> until = new java.util.HashMap<>(all.size() * 2);
                  for (ScoredValue<String> v : all) {
                    until.put(v.getValue(), (long) v.getScore());
                  }
                  return new NodeLiveness(until, current);
                }));
  }

  /** Reads everything stored about a breaker, with the newest {@code events} events. */
  CompletableFuture<BreakerSnapshot> snapshot(BreakerId id, int events) {
    String hash = conn.keys.hash(id);
    CompletableFuture<Map<String, String>> fields =
        conn.commands.hgetall(hash).toCompletableFuture();
    CompletableFuture<List<ScoredValue<String>>> leases =
        conn.commands.zrangeWithScores(conn.keys.leases(id), 0, -1).toCompletableFuture();
    CompletableFuture<List<StreamMessage<String, String>>> recent =
        events > 0
            ? conn.commands
                .xrevrange(conn.keys.events(id), Range.unbounded(), Limit.from(events))
                .toCompletableFuture()
            : CompletableFuture.completedFuture(List.of());
    CompletableFuture<List<ScoredValue<String>>> seen =
        conn.commands.zrangeWithScores(conn.keys.nodes(id), 0, -1).toCompletableFuture();
    CompletableFuture<Map<String, String>> info =
        conn.commands.hgetall(conn.keys.nodeInfo(id)).toCompletableFuture();
    CompletableFuture<Long> time = conn.timeAt(hash);
    // unreadable liveness (its master down) leaves every stored report counted
    CompletableFuture<NodeLiveness> alive = liveness().exceptionally(e -> NodeLiveness.UNKNOWN);
    return CompletableFuture.allOf(fields, leases, recent, seen, info, time, alive)
        .handle(
            (v, err) -> {
              if (err != null) {
                throw StoreErrors.translate("read " + id, err);
              }
              List<ProbeLease> ls = new ArrayList<>();
              for (ScoredValue<String> sv : leases.join()) {
                ls.add(ScriptAnswers.probeLease(sv.getValue(), sv.getScore()));
              }
              List<NodeHeartbeat> nodes = new ArrayList<>();
              Map<String, String> infos = info.join();
              for (ScoredValue<String> sv : seen.join()) {
                String json = infos.getOrDefault(sv.getValue(), "{}");
                nodes.add(NodeHeartbeat.parse(sv.getValue(), json, (long) sv.getScore()));
              }
              return new BreakerSnapshot(
                  id,
                  new LinkedHashMap<>(fields.join()),
                  List.copyOf(ls),
                  toEvents(id, recent.join()),
                  List.copyOf(alive.join().live(nodes, time.join())),
                  time.join());
            });
  }

  /** The newest {@code count} events of a breaker, newest first. */
  CompletableFuture<List<BreakerEvent>> newestEvents(BreakerId id, int count) {
    return RedisConnection.guard(
        "read events of " + id,
        conn.commands
            .xrevrange(conn.keys.events(id), Range.unbounded(), Limit.from(count))
            .thenApply(msgs -> toEvents(id, msgs)));
  }

  /** Events after {@code afterStreamId} (exclusive; empty for the start), oldest first. */
  CompletableFuture<List<BreakerEvent>> eventsAfter(BreakerId id, String afterStreamId, int count) {
    Range<String> range =
        afterStreamId == null || afterStreamId.isEmpty()
            ? Range.unbounded()
            : Range.from(Range.Boundary.excluding(afterStreamId), Range.Boundary.unbounded());
    return RedisConnection.guard(
        "read events of " + id,
        conn.commands
            .xrange(conn.keys.events(id), range, Limit.from(count))
            .thenApply(msgs -> toEvents(id, msgs)));
  }

  static List<BreakerEvent> toEvents(BreakerId id, List<StreamMessage<String, String>> msgs) {
    List<BreakerEvent> out = new ArrayList<>(msgs.size());
    for (StreamMessage<String, String> m : msgs) {
      out.add(new BreakerEvent(id, m.getId(), Map.copyOf(m.getBody())));
    }
    return out;
  }
}
