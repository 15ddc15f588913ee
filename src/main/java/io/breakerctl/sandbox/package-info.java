/**
 * The local sandbox: a real {@code redis-server} and a MongoDB-wire server (mongo-java-server, H2
 * backend) run by a detached daemon JVM on free loopback ports, for {@code breakerctl sandbox},
 * {@code breakerctl demo} and tests.
 *
 * <p>Everything lives in one directory ({@code $XDG_STATE_HOME/breakerctl/sandbox} by default): the
 * state file written by the running daemon ({@link io.breakerctl.sandbox.SandboxState}), the
 * daemon's log, redis-server's log and RDB file, and MongoDB's H2 store. {@link
 * io.breakerctl.sandbox.Sandbox} starts, stops and inspects it; {@link
 * io.breakerctl.sandbox.SandboxDaemon} is the daemon's main class. Not for production: the H2 store
 * loses the last ~2 s of acknowledged writes on a SIGKILL.
 */
package io.breakerctl.sandbox;
