package io.breakerctl.runtime.lockstep;

import io.breakerctl.runtime.model.BreakerId;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The in-process store held to the machine it is built on, by generated sequences (see {@link Ops}
 * and {@link Lockstep}): every answer, every transition and the fields after every step. The two
 * share the state machine, so what this finds is the store's own glue (policy hand-over, warmed
 * policies, lease naming, the answers' and snapshot's fields). Cheap (no server, a clock moved by
 * the waits), so it runs many sequences: {@code -Dmodel.javaTries} (default 300). {@code
 * LockstepIT} holds both to the scripts on Redis.
 */
class LockstepTest {

  @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
  @SizedBy(value = "model.javaTries", tries = 300)
  void inProcessStoreAnswersAsTheMachine(@ForAll("sequences") Ops.Sequence seq) {
    Lockstep run = new Lockstep(seq, BreakerId.parse("lockstep:java"));
    run.machineAgainstStore(1_700_000_000_000L);
    run.covered().forEach(c -> Statistics.label("covered").collect(c));
  }

  @Provide
  Arbitrary<Ops.Sequence> sequences() {
    return Ops.sequences(1, Integer.getInteger("model.javaSteps", 60));
  }
}
