package io.breakerctl.cli.commands;

import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code breakerctl version}: the build's version; never connects. */
@Command(name = "version", description = "Print the breakerctl version (never connects).")
public final class VersionCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin OutputOptions output;

  /** The version of this build ("dev" when not run from the packaged jar). */
  public static String version() {
    String v = VersionCommand.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (output.format() == OutputFormat.TABLE || output.format() == OutputFormat.WIDE) {
      out.println("breakerctl " + version());
      out.flush();
      return 0;
    }
    if (output.format() == OutputFormat.NAME) {
      out.println(version());
      out.flush();
      return 0;
    }
    Map<String, String> v = new LinkedHashMap<>();
    v.put("version", version());
    v.put("java", System.getProperty("java.version"));
    Documents.single(output.format(), "Version", v, out);
    return 0;
  }

  /** Supplies {@code --version}. */
  public static final class Provider implements IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"breakerctl " + version()};
    }
  }
}
