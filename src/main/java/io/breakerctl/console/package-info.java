/**
 * The admin console and {@code top}: a JLine 3 REPL over the breakerctl command model (every
 * command without the prefix, tab completion of commands, options, live breaker ids and contexts,
 * persistent history, {@code use CONTEXT}), and a full-screen live view of the fleet refreshed by
 * the runtime's pub/sub channel and a timer. Both reuse the cli commands through the command lines
 * their {@link io.breakerctl.cli.CliContext} makes ({@link io.breakerctl.cli.CommandLines}, built
 * by the composition root {@code io.breakerctl.BreakerCtl}, which this package never imports): the
 * console runs its lines with connections kept open between commands ({@link
 * io.breakerctl.cli.Sessions}), and {@code top} forces and clears through the same path as {@code
 * breakerctl force}. Both act where they were started: every line starts from the console's global
 * options ({@link io.breakerctl.cli.GlobalOptions}), and the history never keeps a secret ({@link
 * ConsoleHistory}).
 */
package io.breakerctl.console;
