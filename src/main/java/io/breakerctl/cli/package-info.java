/**
 * breakerctl's command-line layer below the composition root: the pieces every command shares
 * (settings and config contexts, the lazy {@link io.breakerctl.cli.ServiceFactory} and the {@link
 * io.breakerctl.cli.FleetStores} it connects through, exit codes and the one {@link
 * io.breakerctl.cli.ErrorPolicy}, confirmation and write-access checks), the commands themselves in
 * {@code cli.commands}, their printers in {@code cli.output} and the fleet exporter in {@code
 * cli.exporter}. A command reaches the run it is part of (global options, environment, services,
 * output style) through {@link io.breakerctl.cli.CliContext}, which the root command implements;
 * nothing here names the root class ({@code io.breakerctl.BreakerCtl}), the console, which sit
 * above, or the Redis adapter: a store is connected through {@link io.breakerctl.cli.FleetStores},
 * which the root implements.
 */
package io.breakerctl.cli;
