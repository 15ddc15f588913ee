package io.breakerctl.cli;

import io.breakerctl.runtime.store.KeyPrefix;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The checks of a loaded config file, each failure naming the file and the line. */
final class ConfigCheck {
  static final String API_VERSION = "breakerctl/v1";
  static final String KIND = "Config";
  static final String NAME = "[A-Za-z0-9][A-Za-z0-9._-]{0,62}";

  private final Path path;
  private final Map<String, Integer> lines;

  ConfigCheck(Path path, Map<String, Integer> lines) {
    this.path = path;
    this.lines = lines;
  }

  void check(ConfigFile f) {
    if (!lines.containsKey("/apiVersion")) {
      // ConfigFile's field starts as the current version: only the file says whether it has one
      throw fail(
          "/",
          "apiVersion is missing (a breakerctl config starts with apiVersion: "
              + API_VERSION
              + ")");
    }
    expect("/apiVersion", "apiVersion", API_VERSION, f.apiVersion);
    expect("/kind", "kind", KIND, f.kind);
    Map<String, Integer> seen = new HashMap<>();
    List<ConfigFile.Context> contexts = f.contexts;
    for (int i = 0; i < contexts.size(); i++) {
      ConfigFile.Context c = contexts.get(i);
      String at = "/contexts/" + i;
      if (c == null) {
        throw fail(at, "contexts[" + i + "] is empty");
      }
      if (c.name == null || !c.name.matches(NAME)) {
        throw fail(
            at,
            "context name must be 1-63 characters of [A-Za-z0-9._-] but was "
                + (c.name == null ? "missing" : "'" + Inputs.cut(c.name) + "'"));
      }
      Integer first = seen.putIfAbsent(c.name, i);
      if (first != null) {
        throw fail(
            at + "/name",
            "context '"
                + c.name
                + "' is defined twice (first at line "
                + line("/contexts/" + first)
                + ")");
      }
      String what = "context '" + c.name + "' ";
      try {
        if (c.redis != null) {
          RedisUris.check(what + "redis", c.redis);
        }
      } catch (CliException e) {
        throw fail(at + "/redis", e.getMessage());
      }
      try {
        if (c.mongo != null) {
          Settings.checkMongo(what + "mongo", c.mongo);
        }
      } catch (CliException e) {
        throw fail(at + "/mongo", e.getMessage());
      }
      if (c.timeout != null) {
        try {
          if (Durations.parse(c.timeout).isZero()) {
            throw new IllegalArgumentException("timeout must be > 0");
          }
        } catch (IllegalArgumentException e) {
          throw fail(at + "/timeout", what + "timeout: " + e.getMessage());
        }
      }
      if (c.minReplicas != null) {
        try {
          Settings.parseMinReplicas(what + "minReplicas", c.minReplicas);
        } catch (CliException e) {
          throw fail(at + "/minReplicas", e.getMessage());
        }
      }
      if (c.prefix != null) {
        try {
          KeyPrefix.check(c.prefix);
        } catch (IllegalArgumentException e) {
          throw fail(at + "/prefix", what + e.getMessage());
        }
      }
    }
  }

  private void expect(String pointer, String field, String want, String was) {
    if (!want.equals(was)) {
      throw fail(
          pointer,
          field
              + " must be "
              + want
              + " but was "
              + (was == null ? "missing" : "'" + Inputs.cut(was) + "'"));
    }
  }

  private int line(String pointer) {
    for (String p = pointer; !p.isEmpty(); p = p.substring(0, p.lastIndexOf('/'))) {
      Integer n = lines.get(p);
      if (n != null) {
        return n;
      }
    }
    return 1;
  }

  private CliException fail(String pointer, String message) {
    return CliException.usage("config file " + path + " line " + line(pointer) + ": " + message);
  }
}
