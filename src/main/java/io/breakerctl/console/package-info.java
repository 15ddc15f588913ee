/**
 * The admin console and {@code top}: a JLine 3 REPL over the breakerctl command model (every
 * command without the prefix, tab completion of commands, options, live breaker ids and contexts,
 * persistent history, {@code use CONTEXT}), and a full-screen live view of the fleet refreshed by
 * the runtime's pub/sub channel and a timer. Both reuse the cli commands: the console runs them
 * through {@link io.breakerctl.cli.BreakerCtl#commandLine(io.breakerctl.cli.Environment,
 * io.breakerctl.cli.BreakerCtl.Sessions)} with connections kept open between commands, and {@code
 * top} forces and clears through the same path as {@code breakerctl force}. Both act where they
 * were started: every line starts from the console's global options ({@link
 * io.breakerctl.cli.GlobalOptions}), and the history never keeps a secret ({@link ConsoleHistory}).
 */
package io.breakerctl.console;
