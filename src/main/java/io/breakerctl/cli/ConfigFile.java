package io.breakerctl.cli;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The config file ({@code $XDG_CONFIG_HOME/breakerctl/config.yaml}): kubectl-style named contexts
 * and the current one. Secrets are never stored in it, only the path of a password file.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({"apiVersion", "kind", "current-context", "contexts"})
public final class ConfigFile {

  static final ObjectMapper YAML =
      new ObjectMapper(
          new YAMLFactory()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  /** Always {@code breakerctl/v1}. */
  public String apiVersion = "breakerctl/v1";

  /** Always {@code Config}. */
  public String kind = "Config";

  /** The context used when neither --context nor BREAKERCTL_CONTEXT names one. */
  @JsonProperty("current-context")
  public String currentContext;

  /** The named contexts. */
  public List<Context> contexts = new ArrayList<>();

  /** One named environment. Unset fields fall back to the defaults. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonPropertyOrder({
    "name",
    "redis",
    "mongo",
    "prefix",
    "timeout",
    "redisUser",
    "redisPasswordFile",
    "redisCaFile",
    "minReplicas"
  })
  public static final class Context {
    /** The context's name. */
    public String name;

    /** Redis URI(s). */
    public String redis;

    /** MongoDB URI. */
    public String mongo;

    /** Key prefix. */
    public String prefix;

    /** Timeout, e.g. 5s. */
    public String timeout;

    /** Redis ACL user. */
    public String redisUser;

    /** File holding the Redis password. */
    public String redisPasswordFile;

    /** PEM CA file for rediss://. */
    public String redisCaFile;

    /**
     * The replicas an override must reach before {@code force} succeeds (its {@code --min-replicas}
     * default), e.g. 1.
     */
    public String minReplicas;
  }

  /** The context named {@code name}. */
  public Optional<Context> context(String name) {
    return contexts.stream().filter(c -> name.equals(c.name)).findFirst();
  }

  /**
   * Reads and checks {@code path}; a missing file is an empty config.
   *
   * @throws CliException (usage) naming the file and the line of what is wrong: YAML that does not
   *     parse, a wrong apiVersion or kind, a context without a valid name or defined twice, a URI,
   *     timeout or prefix that is not one
   */
  public static ConfigFile load(Path path) {
    if (!Files.exists(path)) {
      return new ConfigFile();
    }
    if (!Files.isRegularFile(path)) {
      throw CliException.usage("config file " + path + " is not a regular file");
    }
    Map<String, Integer> lines;
    ConfigFile f;
    try {
      lines = lines(path);
      f = YAML.readValue(path.toFile(), ConfigFile.class);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw CliException.usage(
          "config file "
              + path
              + (at == null ? "" : " line " + at.getLineNr())
              + ": "
              + problem(e));
    } catch (IOException e) {
      throw CliException.usage(
          "cannot read config file " + path + " (" + e.getClass().getSimpleName() + ")");
    }
    if (f == null) {
      return new ConfigFile();
    }
    if (f.contexts == null) {
      f.contexts = new ArrayList<>();
    }
    new ConfigCheck(path, lines).check(f);
    return f;
  }

  /**
   * What is wrong, in the file's words: a value of the wrong shape names its key and the shape
   * wanted ({@code contexts must be a list}), never the Java type the reader wanted; anything else
   * is the YAML parser's message.
   */
  private static String problem(JsonProcessingException e) {
    if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
      StringBuilder key = new StringBuilder();
      for (JsonMappingException.Reference r : m.getPath()) {
        if (r.getFieldName() != null) {
          key.append(key.length() == 0 ? "" : ".").append(r.getFieldName());
        } else if (r.getIndex() >= 0) {
          key.append('[').append(r.getIndex()).append(']');
        }
      }
      return (key.length() == 0 ? "the file" : key) + " must be " + shape(m.getTargetType());
    }
    return oneLine(e.getOriginalMessage());
  }

  private static String shape(Class<?> type) {
    if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "a list";
    }
    if (type == String.class || type.isEnum()) {
      return "a string";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
      return "a number";
    }
    return "a mapping of keys to values";
  }

  /** A YAML parser's message without its excerpt of the file (the line is named apart). */
  private static String oneLine(String message) {
    StringBuilder b = new StringBuilder();
    for (String line : String.valueOf(message).split("\\R")) {
      if (!line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
        b.append(b.length() == 0 ? "" : "; ").append(line.strip());
      }
    }
    return Inputs.cut(b.toString());
  }

  /** The line of every key, by JSON pointer ({@code /contexts/1/redis}); the file is small. */
  private static Map<String, Integer> lines(Path path) throws IOException {
    Map<String, Integer> lines = new HashMap<>();
    try (JsonParser p = YAML.getFactory().createParser(path.toFile())) {
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        if (t == JsonToken.FIELD_NAME || t == JsonToken.START_OBJECT) {
          lines.putIfAbsent(
              p.getParsingContext().pathAsPointer().toString(), p.getTokenLocation().getLineNr());
        }
      }
    }
    return lines;
  }

  /** Writes {@code path} atomically, readable by the owner only. */
  public void save(Path path) {
    try {
      Files.createDirectories(path.toAbsolutePath().getParent());
      Path tmp = Files.createTempFile(path.toAbsolutePath().getParent(), ".config", ".yaml");
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: keep the default permissions
      }
      YAML.writeValue(tmp.toFile(), this);
      try {
        Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw CliException.usage("cannot write config file " + path + ": " + e.getMessage());
    }
  }

  /** This config as YAML. */
  public String toYaml() {
    try {
      return YAML.writeValueAsString(this);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
