/**
 * breakerctl's command-line layer below the composition root: the pieces every command shares
 * (settings and config contexts, the lazy {@link io.breakerctl.cli.ServiceFactory}, exit codes and
 * the one {@link io.breakerctl.cli.ErrorPolicy}, confirmation and write-access checks), the
 * commands themselves in {@code cli.commands}, their printers in {@code cli.output} and the fleet
 * exporter in {@code cli.exporter}. A command reaches the run it is part of (global options,
 * environment, services, output style) through {@link io.breakerctl.cli.CliContext}, which the root
 * command implements; nothing here names the root class ({@code io.breakerctl.BreakerCtl}) or the
 * console, which sit above.
 */
package io.breakerctl.cli;
