/**
 * The composition root of breakerctl, above {@code cli} and {@code console}: {@link
 * io.breakerctl.Main}, the executable jar's entry point (the only place that exits), {@link
 * io.breakerctl.BreakerCtl}, the root command that holds the global options and assembles the
 * command line from every command of {@code cli.commands} and {@code console} with the one error
 * policy, and {@link io.breakerctl.RedisFleetStores}, the commands' {@link
 * io.breakerctl.cli.FleetStores} on Redis: the only class above the runtime that names the Redis
 * adapter. Commands reach the root through {@link io.breakerctl.cli.CliContext} only, and the
 * console makes its command lines through {@link io.breakerctl.cli.CommandLines}: nothing below
 * imports this package, so the arrows point down.
 */
package io.breakerctl;
