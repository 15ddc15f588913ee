/**
 * Human and machine output of the CLI: the versioned view records of every command (breakers,
 * policies, replay and restore, the timeline, fallback snapshots: {@code *Views}), the {@link
 * io.breakerctl.cli.output.Table} and detail printers of table output, and {@link
 * io.breakerctl.cli.output.Documents} for JSON, YAML, jsonl and names.
 *
 * <p>The rule of this package: no output can act on the terminal. Every string that came from
 * Redis, MongoDB, a file or a user (breaker and node ids, reasons, notes, actors, correlation ids,
 * policy fields, event fields) goes through the one sanitiser, {@link
 * io.breakerctl.cli.output.Printable}, at the choke points rather than at each call site: {@link
 * io.breakerctl.cli.output.Table} escapes every cell (a newline or tab in a value stays on its
 * row), the detail printers ({@code describe}, {@code policy get}, {@code fallback show}) every
 * value, {@link io.breakerctl.cli.output.Documents} every JSON string as <code>&#92;uXXXX</code>
 * ({@link io.breakerctl.cli.output.JsonEscapes}) and every YAML string with such a character as a
 * double-quoted scalar with escapes ({@link io.breakerctl.cli.output.YamlEscapes}), and {@code top}
 * every screen line. Behind all of them, {@link io.breakerctl.cli.output.TerminalWriter} is the out
 * and err of every command line the composition root ({@code io.breakerctl.BreakerCtl}) builds, so
 * a printer that forgets still prints nothing but the output's own newlines, tabs and colours raw.
 * The characters: C0 controls, DEL, C1 controls (U+0080-U+009F), U+2028, U+2029 and the
 * bidirectional controls U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069, the same that {@link
 * io.breakerctl.runtime.model.OperatorText} refuses at input.
 */
package io.breakerctl.cli.output;
