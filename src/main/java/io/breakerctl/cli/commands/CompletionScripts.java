package io.breakerctl.cli.commands;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.AutoComplete;
import picocli.CommandLine;

/**
 * The bash and zsh completion scripts, generated from the command model: picocli's {@link
 * AutoComplete} with live candidates (breaker ids, context names) from the hidden {@code
 * __complete} command, and words rejoined at {@code :} so that ids complete whole. The committed
 * {@code completions/} files are these scripts ({@code DocsDriftIT} holds them to it).
 */
public final class CompletionScripts {

  /** The function the completion specification names. */
  public static final String ENTRY = "_breakerctl_complete";

  /** Subcommands whose positional parameter is a breaker id (completed live). */
  static final List<String> BREAKER_ID_COMMANDS =
      List.of(
          "describe",
          "status",
          "top",
          "force_open",
          "force_closed",
          "force_disable",
          "force_metricsonly",
          "force_clear",
          "history",
          "replay",
          "replay_restore",
          "note",
          "wait");

  private static final String PICOCLI_ENTRY = "_complete_breakerctl";

  private CompletionScripts() {}

  /** The bash completion script of {@code commandLine} (the root {@code breakerctl}). */
  public static String bash(CommandLine commandLine) {
    String s = AutoComplete.bash("breakerctl", commandLine).replace("\r\n", "\n");
    int mainCompletion = s.indexOf("\n# Define a completion specification");
    if (mainCompletion < 0) {
      throw new IllegalStateException("picocli's bash script changed shape: no compspec section");
    }
    s = s.substring(0, mainCompletion) + "\n" + helpers() + s.substring(mainCompletion);
    for (String cmd : BREAKER_ID_COMMANDS) {
      s = livePositionals(s, "_picocli_breakerctl_" + cmd, "breaker-ids");
    }
    s = livePositionals(s, "_picocli_breakerctl_config_usecontext", "contexts");
    s = livePositionals(s, "_picocli_breakerctl_config_setcontext", "contexts");
    String compspec = "complete -F " + PICOCLI_ENTRY + " ";
    if (!s.contains(compspec)) {
      throw new IllegalStateException("picocli's bash script changed shape: no " + compspec);
    }
    return s.replace(compspec, "complete -F " + ENTRY + " ");
  }

  /** The zsh completion: the same functions, run through zsh's bashcompinit. */
  public static String zsh(String bash) {
    String body = bash;
    // picocli's shell detection block: bash-only setup, or zsh setup done below.
    int start = body.indexOf("if [ -n \"$BASH_VERSION\" ]");
    if (start < 0) {
      throw new IllegalStateException("picocli's bash script changed shape: no shell detection");
    }
    int end = body.indexOf("\nfi\n", start);
    body = body.substring(0, start) + body.substring(end + 4);
    body = body.replaceFirst("#!/usr/bin/env bash\n", "");
    return "#compdef breakerctl\n"
        + "# zsh completion for breakerctl, generated from the command model with the bash one:\n"
        + "# the same functions run through zsh's bashcompinit. Install as _breakerctl on $fpath.\n"
        + "autoload -U +X bashcompinit && bashcompinit\n"
        + body
        + "\n_bash_complete -F "
        + ENTRY
        + " \"$@\"\n";
  }

  private static String helpers() {
    return String.join(
        "\n",
        "",
        "# Live candidates (breaker ids, context names) from the hidden `__complete` command,",
        "# with the --context/--redis/--prefix already typed on the line; silent on errors.",
        "function _breakerctl_live() {",
        "  local kind=$1 prefix=$2 i w",
        "  local -a args=()",
        "  for ((i = 1; i < COMP_CWORD; i++)); do",
        "    w=${COMP_WORDS[i]}",
        "    case $w in",
        "      --context|--redis|--prefix|--redis-user|--redis-password-file|--redis-ca-file)",
        "        args+=(\"$w\" \"${COMP_WORDS[i+1]}\") ;;",
        "      --context=*|--redis=*|--prefix=*|--redis-user=*) args+=(\"$w\") ;;",
        "    esac",
        "  done",
        "  \"${COMP_WORDS[0]}\" \"${args[@]}\" __complete \"$kind\" \"$prefix\" 2>/dev/null",
        "}",
        "",
        "# bash splits words at the characters of COMP_WORDBREAKS, ':' among them, so",
        "# `describe claims:m` arrives as `claims` `:` `m`. The entry point joins a word split",
        "# at ':' again, completes the whole word, and then drops from each candidate the part",
        "# before the word's last ':', which bash keeps on the line (what bash-completion's",
        "# __ltrim_colon_completions does). zsh does not split words: nothing to do there.",
        "function " + ENTRY + "() {",
        "  if [[ $COMP_WORDBREAKS != *:* ]]; then",
        "    " + PICOCLI_ENTRY + " \"$@\"",
        "    return",
        "  fi",
        "  local line=$COMP_LINE lead w i j",
        "  local -a words=()",
        "  local cword=$COMP_CWORD",
        "  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do",
        "    w=${COMP_WORDS[i]}",
        "    lead=${line%%[![:blank:]]*}",
        "    line=${line:${#lead}}",
        "    line=${line:${#w}}",
        "    j=$((${#words[@]} - 1))",
        "    if ((i > 1)) && [[ -z $lead ]] && [[ $w == :* || ${words[j]} == *: ]]; then",
        "      words[j]+=$w",
        "    else",
        "      words+=(\"$w\")",
        "    fi",
        "    ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))",
        "  done",
        "  local cur=${words[cword]}",
        "  local -a COMP_WORDS=(\"${words[@]}\")",
        "  local COMP_CWORD=$cword",
        "  " + PICOCLI_ENTRY + " \"$@\"",
        "  local status=$?",
        "  if [[ $cur == *:* ]]; then",
        "    local keep=${cur%\"${cur##*:}\"}",
        "    for i in \"${!COMPREPLY[@]}\"; do",
        "      COMPREPLY[i]=${COMPREPLY[i]#\"$keep\"}",
        "    done",
        "  fi",
        "  return $status",
        "}",
        "");
  }

  private static String livePositionals(String script, String function, String kind) {
    Pattern body =
        Pattern.compile(
            "(function " + Pattern.quote(function) + "\\(\\) \\{.*?)(    local positionals=\"\")",
            Pattern.DOTALL);
    Matcher m = body.matcher(script);
    if (!m.find()) {
      return script; // the command has no such positional (yet): nothing to make live
    }
    return script.substring(0, m.start(2))
        + "    local positionals=$(_breakerctl_live "
        + kind
        + " \"${curr_word}\")"
        + script.substring(m.end(2));
  }
}
