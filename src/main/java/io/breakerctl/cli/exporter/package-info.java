/**
 * The fleet exporter behind {@code breakerctl exporter}: the fleet's metrics for Prometheus, read
 * from Redis, every breaker once whatever the number of nodes using it.
 *
 * <p>Design: it lives in the CLI because it is the status view in another output format. {@link
 * io.breakerctl.cli.exporter.FleetMetrics} turns the same rows {@code status -o json} prints (one
 * {@code FleetScan} pass, {@code BreakerViews.status}) into samples, so the two never disagree, and
 * it needs only the viewer ACL. {@link io.breakerctl.cli.exporter.FleetExporter} serves them on the
 * JDK's HTTP server (no dependency added) with one read of Redis at a time, shared by the scrapes
 * that arrive during it and reused for a short TTL, bounded by the scrape timeout; when Redis
 * cannot be read, a scrape answers {@code breakerctl_up 0} and the error at once. {@link
 * io.breakerctl.cli.exporter.Exposition} writes the text format 0.0.4 or OpenMetrics 1.0.0. The
 * runtime never imports this package ({@code ArchitectureTest}).
 *
 * <p>What is not exported, and why: transitions by from/to state (the keys count transitions, not
 * their kinds: the node meter {@code breakerctl.breaker.transitions} has them per node) and policy
 * drift against MongoDB (the exporter reads Redis only; the nodes out of step with the keys are
 * exported). A scrape holds the whole exposition in memory (about 2 KB per breaker); streaming it
 * is not done yet.
 */
package io.breakerctl.cli.exporter;
