package io.breakerctl.sandbox;

import java.nio.file.Path;

/** What {@link Sandbox#up()} did: the running sandbox, and whether it was already running. */
public record SandboxStart(SandboxState state, boolean alreadyRunning, Path logFile) {}
