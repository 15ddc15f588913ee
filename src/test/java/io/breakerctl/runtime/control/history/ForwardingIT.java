package io.breakerctl.runtime.control.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.ControlPlaneIT;
import io.breakerctl.runtime.control.RestartableMongo;
import io.breakerctl.runtime.control.timeline.StreamTail;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.ChildJvm;
import io.breakerctl.testing.StartSignal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Forwarding without loss across a MongoDB outage and a killed forwarder")
class ForwardingIT extends ControlPlaneIT {

  static final List<String> SHARED = List.of("fleet:members", "fleet:billing", "fleet:claims");

  private ChildJvm node(RestartableMongo m, String id, String startAt, String stopAt, String own) {
    List<String> args = new ArrayList<>(List.of(REDIS.uri(), m.uri(), "fwd", id, startAt, stopAt));
    args.addAll(SHARED);
    args.add(own);
    return REDIS.manage(
        ChildJvm.start(List.of("-Xmx128m"), TrippingNodeMain.class, args.toArray(String[]::new)));
  }

  private static void awaitLine(ChildJvm jvm, String line, Duration limit) {
    try {
      Poll.until(limit, jvm.pid() + " to print " + line, () -> jvm.stdout().contains(line));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; its stderr: " + jvm.stderr(), e);
    }
  }

  /** Entries in every breaker's stream now. */
  private long streamEntries() {
    List<BreakerId> ids = new ArrayList<>();
    redis.forEachBreaker(ids::add);
    long n = 0;
    for (BreakerId id : ids) {
      n += (Long) REDIS.server().call("XLEN", redis.keys().events(id));
    }
    return n;
  }

  @Test
  @DisplayName(
      "MongoDB stopped while breakers trip in 2 JVMs, the forwarding JVM SIGKILLed during the"
          + " outage, both restarted: every stream entry is in MongoDB exactly once")
  void everyEntryExactlyOnce() {
    try (RestartableMongo m = new RestartableMongo();
        ControlDatabase check = ControlDatabase.connect(m.config("fwd", Duration.ofSeconds(3)))) {
      check.ensureIndexes();
      // the nodes start calling once MongoDB is down (a start signal, not a guess of how long two
      // JVMs take to start on a loaded machine: a late start tripped them with MongoDB up)
      Path start = StartSignal.newFile("forwarding");
      ChildJvm a = node(m, "node-a", "@" + start, "+4000", "fleet:a-only");
      ChildJvm b = node(m, "node-b", "@" + start, "+4000", "fleet:b-only");
      awaitLine(a, "READY", Duration.ofSeconds(20));
      awaitLine(b, "READY", Duration.ofSeconds(20));
      Poll.until(
          Duration.ofSeconds(20), "a node to hold the forwarder lease", () -> holder() != null);

      // MongoDB goes down before the breakers trip
      m.stop();
      long startAt = System.currentTimeMillis() + 300;
      StartSignal.write(start, startAt);
      // the nodes have tripped, more than ten events in all, before the forwarder is killed (a
      // fixed 1.5 s on a machine at load 11 left 9: the forwarder's node had not tripped yet)
      Poll.until(Duration.ofSeconds(15), "the nodes to trip", () -> streamEntries() > 10);
      String holder = holder();
      assertThat(holder).isIn("node-a", "node-b");
      ChildJvm forwarder = holder.equals("node-a") ? a : b;
      ChildJvm survivor = forwarder == a ? b : a;
      forwarder.kill();
      awaitLine(survivor, "DONE", Duration.ofSeconds(20));

      // the streams before anything is trimmed (nothing was forwarded during the outage)
      Map<String, BreakerEvent> streams = new HashMap<>();
      List<BreakerId> ids = new ArrayList<>();
      redis.forEachBreaker(ids::add);
      for (BreakerId id : ids) {
        for (BreakerEvent e : StreamTail.after(redis, id, "")) {
          streams.put(id + "|" + e.epoch() + "|" + e.streamId(), e);
        }
      }
      assertThat(ids).extracting(BreakerId::toString).containsAll(SHARED);
      assertThat(streams).hasSizeGreaterThan(10);
      for (BreakerId id : ids) {
        assertThat(StoreFutures.await(redis.state(id)).fields())
            .as("nothing of %s was forwarded (so nothing trimmed)", id)
            .doesNotContainKey("forwarded");
      }

      // MongoDB and the killed node come back; the dead holder's lease expires and another takes
      // over
      m.start();
      ChildJvm restarted = node(m, holder + "-2", "0", "0", "fleet:restarted");
      awaitLine(restarted, "READY", Duration.ofSeconds(20));
      // events the nodes append after the read (an open window noticed by a heartbeat flush)
      // are stream entries too: the stream still holds them, forwarded or not, as its tail
      Map<String, BreakerEvent> all = new HashMap<>(streams);
      Poll.until(
          Duration.ofSeconds(60),
          "every stream entry in MongoDB",
          () -> {
            for (BreakerId id : ids) {
              for (BreakerEvent e : StreamTail.after(redis, id, "")) {
                all.putIfAbsent(id + "|" + e.epoch() + "|" + e.streamId(), e);
              }
            }
            return check.collection(ControlDatabase.HISTORY).countDocuments() >= all.size();
          });
      assertThat(holder()).isNotEqualTo(holder);

      Map<String, Document> stored = new HashMap<>();
      for (Document d : check.collection(ControlDatabase.HISTORY).find()) {
        String key =
            d.getString("breakerId") + "|" + d.getString("epoch") + "|" + d.getString("streamId");
        assertThat(stored.put(key, d)).as("stored once: %s", key).isNull();
      }
      assertThat(stored.keySet()).containsAll(streams.keySet());
      assertThat(stored.keySet()).containsExactlyInAnyOrderElementsOf(all.keySet());
      for (Map.Entry<String, BreakerEvent> e : all.entrySet()) {
        Document fields = stored.get(e.getKey()).get("fields", Document.class);
        Map<String, String> asStored = new HashMap<>();
        fields.forEach((k, v) -> asStored.put(k, String.valueOf(v)));
        assertThat(asStored).as("fields of %s", e.getKey()).isEqualTo(e.getValue().fields());
      }
    }
  }

  private String holder() {
    return StoreFutures.await(redis.forwarderLeaseHolder()).orElse(null);
  }
}
