/**
 * The composition root of breakerctl, above {@code cli} and {@code console}: {@link
 * io.breakerctl.Main}, the executable jar's entry point (the only place that exits), and {@link
 * io.breakerctl.BreakerCtl}, the root command that holds the global options and assembles the
 * command line from every command of {@code cli.commands} and {@code console} with the one error
 * policy. Commands reach it through {@link io.breakerctl.cli.CliContext} only, and the console
 * makes its command lines through {@link io.breakerctl.cli.CommandLines}: nothing below imports
 * this package, so the arrows point down.
 */
package io.breakerctl;
