package io.breakerctl.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md and src/docs/*.md resolves: the file exists, and an anchor
 * ({@code page.md#section}, {@code #section}) names a heading of that page as GitHub spells it.
 */
@DisplayName("every relative link of the docs resolves, anchors included")
class DocLinksTest {

  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");

  /** The page's text outside fenced blocks and inline code. */
  static String prose(String text) {
    return outsideFences(text).replaceAll("`[^`\n]*`", "``");
  }

  /** The page's text outside fenced blocks. */
  static String outsideFences(String text) {
    StringBuilder out = new StringBuilder();
    boolean fenced = false;
    for (String l : text.split("\n", -1)) {
      if (l.startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      if (!fenced) {
        out.append(l).append('\n');
      }
    }
    return out.toString();
  }

  /** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
  static String slug(String heading) {
    return heading
        .strip()
        .toLowerCase(Locale.ROOT)
        .replace("`", "")
        .replaceAll("[^\\p{L}\\p{N} _-]", "")
        .replace(' ', '-');
  }

  static Set<String> anchors(Path page) {
    Set<String> out = new HashSet<>();
    Matcher h = HEADING.matcher(outsideFences(DocPages.read(page)));
    while (h.find()) {
      out.add(slug(h.group(1)));
    }
    return out;
  }

  @Test
  @DisplayName("files exist and anchors name a heading")
  void everyLinkResolves() {
    List<String> broken = new ArrayList<>();
    int links = 0;
    for (Path page : DocPages.pages()) {
      Matcher m = LINK.matcher(prose(DocPages.read(page)));
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("^[a-z]+:.*")) {
          continue; // http:, https:, mailto:
        }
        links++;
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? page : page.resolveSibling(file).normalize();
        if (!Files.exists(resolved)) {
          broken.add(page + ": " + target + " (no file " + resolved + ")");
          continue;
        }
        if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
          broken.add(page + ": " + target + " (no such heading in " + resolved + ")");
        }
      }
    }
    assertThat(links).as("links checked").isGreaterThan(20);
    assertThat(broken).as("broken links").isEmpty();
  }

  @Test
  @DisplayName("the README is a front door: at most 250 lines, linking every page")
  void readmeIsShortAndLinksEveryPage() {
    String readme = DocPages.read(Path.of("README.md"));
    assertThat(readme.split("\n", -1).length - 1).isLessThanOrEqualTo(250);
    for (Path page : DocPages.pages()) {
      if (!page.toString().equals("README.md")) {
        assertThat(readme).as("the README links " + page).contains("](" + page + ")");
      }
    }
  }

  @Test
  @DisplayName("slugs are GitHub's")
  void slugs() {
    assertThat(slug("Roles: who may write, and as whom"))
        .isEqualTo("roles-who-may-write-and-as-whom");
    assertThat(slug("The demo's fleet table")).isEqualTo("the-demos-fleet-table");
    assertThat(slug("Policies, history, replay, notes, wait"))
        .isEqualTo("policies-history-replay-notes-wait");
  }
}
