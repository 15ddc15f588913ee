package io.breakerctl.runtime.control.policy;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Reads policy documents from YAML or JSON files and validates them, collecting every problem with
 * its file, document index, field path and bad value instead of stopping at the first.
 *
 * <p>A YAML file may hold several documents separated by {@code ---}; a JSON file one object, an
 * array of objects, or several objects one after the other. A directory contributes its {@code
 * *.yaml}, {@code *.yml} and {@code *.json} files (recursively, sorted by path). Files over {@link
 * #MAX_FILE_BYTES} are rejected unread. Duplicate {@code metadata.id}s across the whole set are
 * problems. A top-level {@code status} (what {@code breakerctl policy get -o yaml} prints: version,
 * author, ...) is read-only and ignored, so a printed policy can be edited and applied again.
 * Reading has no side effects: nothing is connected to or written.
 */
public final class PolicyParser {

  /** The largest policy file accepted: 1 MiB. */
  public static final long MAX_FILE_BYTES = 1024 * 1024;

  /** The only {@code apiVersion} understood. */
  public static final String API_VERSION = "breakerctl/v1";

  /** The only {@code kind} understood. */
  public static final String KIND = "Policy";

  private static final ObjectMapper YAML =
      YAMLMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .build();
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .build();

  private PolicyParser() {}

  /**
   * Reads and validates files and directories.
   *
   * @param paths files or directories, in the order they should be read
   */
  public static PolicySet read(List<Path> paths) {
    return read(paths, null);
  }

  /**
   * Reads and validates files and directories; a {@code metadata.expiresAt} not after {@code now}
   * is a problem (the version would expire as it is created).
   *
   * @param paths files or directories, in the order they should be read
   * @param now the time expiries are judged at; null: not judged
   */
  public static PolicySet read(List<Path> paths, Instant now) {
    List<PolicyDocument> docs = new ArrayList<>();
    List<PolicyProblem> problems = new ArrayList<>();
    Map<PolicyId, String> seen = new LinkedHashMap<>();
    for (Path p : paths) {
      if (Files.isDirectory(p)) {
        List<Path> files;
        try (Stream<Path> s = Files.walk(p)) {
          files = s.filter(PolicyParser::isPolicyFile).sorted().collect(Collectors.toList());
        } catch (IOException e) {
          problems.add(new PolicyProblem(p.toString(), 0, 0, 0, "cannot list: " + describe(e)));
          continue;
        }
        if (files.isEmpty()) {
          problems.add(
              new PolicyProblem(
                  p.toString(), 0, 0, 0, "directory holds no *.yaml, *.yml or *.json file"));
        }
        for (Path f : files) {
          readFile(f, docs, problems, seen, now);
        }
      } else {
        readFile(p, docs, problems, seen, now);
      }
    }
    return finish(docs, problems);
  }

  /** Reads and validates one or more files or directories. */
  public static PolicySet read(Path... paths) {
    return read(Arrays.asList(paths));
  }

  /**
   * Validates text that came from elsewhere (stdin, a test). {@code source} names it in problems; a
   * name ending in {@code .json} selects JSON, anything else YAML.
   */
  public static PolicySet parse(String source, String text) {
    List<PolicyDocument> docs = new ArrayList<>();
    List<PolicyProblem> problems = new ArrayList<>();
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_FILE_BYTES) {
      problems.add(tooLarge(source, bytes.length));
    } else {
      parseBytes(source, bytes, docs, problems, new LinkedHashMap<>(), null);
    }
    return finish(docs, problems);
  }

  private static boolean isPolicyFile(Path p) {
    String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
    return Files.isRegularFile(p)
        && !name.startsWith(".")
        && (name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json"));
  }

  private static void readFile(
      Path f,
      List<PolicyDocument> docs,
      List<PolicyProblem> problems,
      Map<PolicyId, String> seen,
      Instant now) {
    String source = f.toString();
    try {
      if (!Files.exists(f)) {
        problems.add(new PolicyProblem(source, 0, 0, 0, "no such file or directory"));
        return;
      }
      if (!Files.isRegularFile(f)) {
        // a FIFO or a device would block the read, or never end it
        problems.add(
            new PolicyProblem(
                source, 0, 0, 0, "is not a regular file (policies are read from files)"));
        return;
      }
      long size = Files.size(f);
      if (size > MAX_FILE_BYTES) {
        problems.add(tooLarge(source, size));
        return;
      }
      parseBytes(source, Files.readAllBytes(f), docs, problems, seen, now);
    } catch (IOException e) {
      problems.add(new PolicyProblem(source, 0, 0, 0, "cannot read: " + describe(e)));
    }
  }

  /** An I/O failure in words, never a Java class name. */
  static String describe(IOException e) {
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
      return fs.getReason();
    }
    String m = e.getMessage();
    return m == null || m.isBlank() ? "input/output error" : m;
  }

  private static PolicyProblem tooLarge(String source, long size) {
    return new PolicyProblem(
        source,
        0,
        0,
        0,
        "file is " + size + " bytes, over the limit of " + MAX_FILE_BYTES + " bytes (1 MiB)");
  }

  private static void parseBytes(
      String source,
      byte[] bytes,
      List<PolicyDocument> docs,
      List<PolicyProblem> problems,
      Map<PolicyId, String> seen,
      Instant now) {
    boolean json = source.toLowerCase(Locale.ROOT).endsWith(".json");
    ObjectMapper mapper = json ? JSON : YAML;
    int index = 0;
    int before = problems.size();
    List<Map<String, Integer>> lines = lines(mapper, bytes);
    try (MappingIterator<JsonNode> it = mapper.readerFor(JsonNode.class).readValues(bytes)) {
      while (true) {
        JsonNode node;
        try {
          if (!it.hasNextValue()) {
            break;
          }
          node = it.nextValue();
        } catch (JsonProcessingException e) {
          problems.add(syntax(source, index + 1, e));
          return;
        } catch (RuntimeException e) {
          // MappingIterator wraps parse failures of hasNextValue() in a RuntimeException
          if (e.getCause() instanceof JsonProcessingException jpe) {
            problems.add(syntax(source, index + 1, jpe));
            return;
          }
          throw e;
        }
        if (node == null || node.isNull() || node.isMissingNode()) {
          continue;
        }
        if (json && node.isArray()) {
          for (JsonNode element : node) {
            index++;
            validate(source, index, element, docs, problems, seen, linesOf(lines, index), now);
          }
        } else {
          index++;
          validate(source, index, node, docs, problems, seen, linesOf(lines, index), now);
        }
      }
    } catch (JsonProcessingException e) {
      problems.add(syntax(source, index + 1, e));
    } catch (IOException e) {
      problems.add(new PolicyProblem(source, 0, 0, 0, "cannot read: " + describe(e)));
    }
    if (index == 0 && problems.size() == before) {
      problems.add(
          new PolicyProblem(
              source, 0, 0, 0, "holds no policy document (an empty file, or only --- separators)"));
    }
  }

  private static Map<String, Integer> linesOf(List<Map<String, Integer>> lines, int index) {
    return index - 1 < lines.size() ? lines.get(index - 1) : Map.of();
  }

  /**
   * The line of every key of every document, by JSON pointer within its document ({@code
   * /spec/failureThreshold}), so a problem found in the tree names its line. A document is a
   * mapping at the top level (YAML, JSON) or in a top-level JSON array. Empty when the text does
   * not tokenize (the parse then reports the syntax error itself).
   */
  private static List<Map<String, Integer>> lines(ObjectMapper mapper, byte[] bytes) {
    List<Map<String, Integer>> docs = new ArrayList<>();
    try (JsonParser p = mapper.getFactory().createParser(bytes)) {
      Map<String, Integer> current = null;
      int rootDepth = -1;
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        com.fasterxml.jackson.core.JsonStreamContext ctx = p.getParsingContext();
        if (t == JsonToken.START_OBJECT
            && (ctx.getParent().inRoot()
                || (ctx.getParent().inArray() && ctx.getParent().getParent().inRoot()))) {
          current = new HashMap<>();
          current.put("", p.getTokenLocation().getLineNr());
          docs.add(current);
          rootDepth = ctx.getParent().inRoot() ? 0 : 1;
        } else if (t == JsonToken.FIELD_NAME && current != null) {
          String pointer = ctx.pathAsPointer().toString();
          if (rootDepth == 1) {
            pointer = pointer.substring(pointer.indexOf('/', 1)); // drop the array index
          }
          current.putIfAbsent(pointer, p.getTokenLocation().getLineNr());
        }
      }
    } catch (IOException | RuntimeException e) {
      return docs;
    }
    return docs;
  }

  /**
   * The line a problem is about: the key its message starts with ({@code spec.failureThreshold must
   * be ...}), else the nearest enclosing key, else the document's first line.
   */
  private static int lineOf(Map<String, Integer> lines, String message) {
    int space = message.indexOf(' ');
    String path = space < 0 ? message : message.substring(0, space);
    if (path.matches("[A-Za-z][A-Za-z0-9_.]*")) {
      String pointer = "/" + path.replace('.', '/');
      while (!pointer.isEmpty()) {
        Integer n = lines.get(pointer);
        if (n != null) {
          return n;
        }
        pointer = pointer.substring(0, pointer.lastIndexOf('/'));
      }
    }
    return lines.getOrDefault("", 0);
  }

  private static PolicyProblem syntax(String source, int document, JsonProcessingException e) {
    JsonLocation loc = e.getLocation();
    int line = loc == null ? 0 : Math.max(loc.getLineNr(), 0);
    int column = loc == null ? 0 : Math.max(loc.getColumnNr(), 0);
    return new PolicyProblem(
        source, document, line, column, "syntax error: " + firstLine(e.getOriginalMessage()));
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable";
    }
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).strip();
  }

  private static PolicySet finish(List<PolicyDocument> docs, List<PolicyProblem> problems) {
    return new PolicySet(docs, problems);
  }

  private static void validate(
      String source,
      int index,
      JsonNode root,
      List<PolicyDocument> docs,
      List<PolicyProblem> problems,
      Map<PolicyId, String> seen,
      Map<String, Integer> lines,
      Instant now) {
    List<String> found = new ArrayList<>();
    Consumer<String> report = found::add;
    PolicyId[] id = new PolicyId[1];
    PolicyDocument doc = PolicyValidator.validateTree(source, index, root, report, id);
    if (id[0] != null) {
      String first = seen.putIfAbsent(id[0], source + " document " + index);
      if (first != null) {
        found.add("metadata.id '" + id[0] + "' is already defined in " + first);
      }
    }
    if (now != null
        && doc != null
        && doc.expiresAt().isPresent()
        && !doc.expiresAt().get().isAfter(now)) {
      found.add(
          "metadata.expiresAt "
              + doc.expiresAt().get()
              + " is not in the future: the version would expire as it is created");
    }
    for (String m : found) {
      problems.add(new PolicyProblem(source, index, lineOf(lines, m), 0, m));
    }
    if (found.isEmpty() && doc != null) {
      docs.add(doc);
    }
  }
}
