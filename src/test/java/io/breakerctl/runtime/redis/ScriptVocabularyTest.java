package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.OverrideOutcome;
import io.breakerctl.runtime.model.ReassertOutcome;
import io.breakerctl.runtime.model.RecordOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.StoreFailureMode;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.model.WarmOutcome;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Holds the Lua scripts' strings to the Java vocabulary (no Redis): every code an enum says a
 * script answers is written in that script, and every upper-case word a script writes is a code
 * Java knows (a state, a transition cause, the script's own answers, its modes) or a Redis command.
 * A typo in a script's reason or a Java constant the scripts never answer fails here.
 */
@DisplayName("Lua strings = Java vocabulary")
class ScriptVocabularyTest {
  private static final Pattern WORD = Pattern.compile("'([A-Z][A-Z_]{2,})'");

  /** Words every script may write besides its own answers. */
  private static final Set<String> SHARED = new HashSet<>();

  static {
    Arrays.stream(State.values()).map(State::code).forEach(SHARED::add);
    Arrays.stream(TransitionCause.values()).map(TransitionCause::name).forEach(SHARED::add);
    Arrays.stream(StoreFailureMode.values()).map(StoreFailureMode::name).forEach(SHARED::add);
    Arrays.stream(io.breakerctl.runtime.model.RateLimitAction.values())
        .map(Enum::name)
        .forEach(SHARED::add);
    SHARED.addAll(LuaScriptsTest.REDIS_62_COMMANDS); // the commands the scripts may call
    SHARED.addAll(
        List.of(
            // literal arguments of those commands
            "WITHSCORES",
            "LIMIT",
            "COUNT",
            "MINID",
            "MAXLEN",
            "NX",
            "PX",
            "XX",
            // the fallback policy default warm.lua writes
            "NONE",
            // request modes the scripts take (OverrideKind, Reassertion.Mode)
            "CLEAR",
            "REASSERT",
            "DEGRADED_TRIP",
            // warm.lua's un-warm mode (WarmResult.UNWARM_MODE)
            "UNWARM"));
  }

  static Stream<Arguments> scripts() {
    return Stream.of(
        Arguments.of(BreakerScript.ACQUIRE, codes(AdmissionReason.values())),
        Arguments.of(BreakerScript.RECORD, codes(RecordOutcome.values())),
        Arguments.of(BreakerScript.OVERRIDE, codes(OverrideOutcome.values())),
        Arguments.of(BreakerScript.REASSERT, codes(ReassertOutcome.values())),
        Arguments.of(BreakerScript.WARM, codes(WarmOutcome.values())));
  }

  private static Set<String> codes(Enum<?>[] values) {
    Set<String> s = new HashSet<>();
    for (Enum<?> v : values) {
      if (!(v instanceof AdmissionReason a) || a.fromScript()) {
        s.add(v.name());
      }
    }
    return s;
  }

  private static Set<String> words(BreakerScript script) {
    Set<String> words = new HashSet<>();
    Matcher m = WORD.matcher(LuaScriptsTest.code(BreakerScript.source(script.file())));
    while (m.find()) {
      words.add(m.group(1));
    }
    return words;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scripts")
  @DisplayName("every answer Java knows is written in the script")
  void javaCodesAreInTheScript(BreakerScript script, Set<String> answers) {
    assertThat(words(script)).containsAll(answers);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scripts")
  @DisplayName("every word the script writes is a code Java knows")
  void scriptWordsAreKnown(BreakerScript script, Set<String> answers) {
    Set<String> unknown = words(script);
    unknown.removeAll(SHARED);
    unknown.removeAll(answers);
    assertThat(unknown).as("words in %s no Java vocabulary knows", script.file()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scripts")
  @DisplayName("the node-only admission reasons are never a script's")
  void nodeReasonsAreNotInScripts(BreakerScript script, Set<String> answers) {
    for (AdmissionReason r : AdmissionReason.values()) {
      if (!r.fromScript()) {
        assertThat(words(script)).as(r + " in " + script.file()).doesNotContain(r.code());
      }
    }
  }
}
