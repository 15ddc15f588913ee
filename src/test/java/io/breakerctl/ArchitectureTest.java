package io.breakerctl;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The house's rules, read from the compiled classes (not from import lines): the store contract
 * knows no adapter, the runtime is a library below every front end, the CLI never reaches the
 * console, only the composition root and the runtime's implementation name the Redis adapter, no
 * two packages depend on each other in a circle (at any depth), and the runtime's implementation
 * ({@code io.breakerctl.runtime.internal}) is named by no package outside it: a service sees the
 * API ({@code io.breakerctl.runtime}, {@code io.breakerctl.runtime.model}), which reaches the
 * implementation through {@link io.breakerctl.runtime.BreakerRegistry.Provider}.
 */
@DisplayName("architecture: who may depend on whom")
class ArchitectureTest {
  private static JavaClasses main;

  @BeforeAll
  static void read() {
    main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.breakerctl");
  }

  @Test
  @DisplayName("the store contract imports no adapter and nothing above it")
  void storeKnowsNoAdapter() {
    noClasses()
        .that()
        .resideInAPackage("io.breakerctl.runtime.store")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.breakerctl.runtime.redis..",
            "io.lettuce..",
            "com.mongodb..",
            "io.breakerctl.runtime.control..",
            "io.breakerctl.cli..",
            "io.breakerctl.console..")
        .check(main);
  }

  @Test
  @DisplayName("the runtime never imports the CLI, the console, the sandbox, picocli or JLine")
  void theRuntimeIsALibrary() {
    noClasses()
        .that()
        .resideInAPackage("io.breakerctl.runtime..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.breakerctl.cli..",
            "io.breakerctl.console..",
            "io.breakerctl.sandbox..",
            "picocli..",
            "org.jline..")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("io.breakerctl.Main")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("io.breakerctl.BreakerCtl")
        .check(main);
  }

  @Test
  @DisplayName("the CLI never imports the console: the composition root assembles both")
  void theCliNeverReachesTheConsole() {
    noClasses()
        .that()
        .resideInAPackage("io.breakerctl.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.breakerctl.console..")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("io.breakerctl.BreakerCtl")
        .check(main);
  }

  @Test
  @DisplayName("the CLI and the console touch no Redis adapter, Lettuce or MongoDB client")
  void theFrontEndGoesThroughTheRuntime() {
    // no exception: a command connects through cli.FleetStores, which the root implements
    noClasses()
        .that()
        .resideInAnyPackage("io.breakerctl.cli..", "io.breakerctl.console..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.breakerctl.runtime.redis..", "io.lettuce..")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("com.mongodb.client.MongoClients")
        .check(main);
  }

  @Test
  @DisplayName("only the composition root and the runtime's implementation name the Redis adapter")
  void onlyTheCompositionNamesRedis() {
    // the root's RedisFleetStores connects the CLI's and the console's stores, the registry's
    // StoreConnection a service's; the control plane, the fallback toolkit, the sandbox, the CLI
    // and the console use the store ports
    noClasses()
        .that()
        .resideOutsideOfPackages(
            "io.breakerctl", "io.breakerctl.runtime.internal", "io.breakerctl.runtime.redis..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.breakerctl.runtime.redis..")
        .check(main);
  }

  @Test
  @DisplayName("no circle between any two packages, at every depth")
  void noPackageCycles() {
    // each package is a slice of its own ("io.breakerctl", "io.breakerctl.runtime.store", ...)
    slices().matching("io.(**)").should().beFreeOfCycles().check(main);
  }

  @Test
  @DisplayName("the runtime's implementation is internal: no package outside it names it")
  void theImplementationIsInternal() {
    // the API reaches it through BreakerRegistry.Provider (a service file), never by name
    noClasses()
        .that()
        .resideOutsideOfPackage("io.breakerctl.runtime.internal..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.breakerctl.runtime.internal..")
        .check(main);
  }

  @Test
  @DisplayName("the API a service uses depends on no adapter, store contract or control plane")
  void theApiStandsAlone() {
    // io.breakerctl.runtime and .model are what a service imports: the types their signatures
    // show are theirs or the JDK's, apart from the builder's named options (a Lettuce client the
    // service owns, a BreakerStore for tests and the sandbox, the control plane's ControlConfig)
    // and the hot snapshots it hands to the fallback toolkit
    noClasses()
        .that()
        .resideInAnyPackage("io.breakerctl.runtime", "io.breakerctl.runtime.model")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.breakerctl.runtime.redis..",
            "io.breakerctl.runtime.local..",
            "io.breakerctl.runtime.connection..",
            "io.breakerctl.runtime.retry..",
            "io.breakerctl.runtime.metrics..",
            "com.mongodb..")
        .check(main);
  }

  @Test
  @DisplayName("only the integrations use Resilience4j, and nothing outside them uses them")
  void integrationsStayApart() {
    // Resilience4j is an optional dependency: a runtime class naming it would fail to load in a
    // service without it; the runtime, the CLI and the console never reach an integration
    noClasses()
        .that()
        .resideOutsideOfPackage("io.breakerctl.integration..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.github.resilience4j..", "io.breakerctl.integration..")
        .check(main);
  }

  @Test
  @DisplayName("the Resilience4j integration uses the runtime's API, never its implementation")
  void theResilience4jIntegrationUsesTheApi() {
    noClasses()
        .that()
        .resideInAPackage("io.breakerctl.integration..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.breakerctl.runtime.internal..",
            "io.breakerctl.runtime.local..",
            "io.breakerctl.runtime.redis..",
            "io.breakerctl.cli..",
            "io.breakerctl.console..")
        .check(main);
  }

  /**
   * The methods outside the store that may take a breaker's hash or an event's fields as a whole:
   * each shows or keeps them as stored, picking no field by name for its meaning.
   */
  private static final Set<String> SHOWS_FIELDS_AS_STORED =
      Set.of(
          // the history document keeps every field of the stream entry as evidence (a malformed
          // one too); replay and the timeline read it back as a BreakerEvent
          "io.breakerctl.runtime.control.history.HistoryForwarder.storeHistory("
              + "io.breakerctl.runtime.control.TransitionRef,"
              + " io.breakerctl.runtime.store.BreakerEvent)",
          // a timeline entry's counts: the fields with no component of their own (every field of
          // a malformed entry)
          "io.breakerctl.runtime.control.timeline.TimelineEntries.fromEvent("
              + "io.breakerctl.runtime.store.BreakerEvent,"
              + " io.breakerctl.runtime.control.timeline.TimelineSource)",
          // describe's INVALID document shows the unreadable hash as stored
          "io.breakerctl.cli.output.BreakerViews.detail("
              + "io.breakerctl.runtime.store.BreakerSnapshot, java.lang.String)",
          // describe's events: the fields beyond from, to, cause and at (all of a malformed one)
          "io.breakerctl.cli.output.BreakerViews.events("
              + "io.breakerctl.runtime.store.BreakerSnapshot)");

  @Test
  @DisplayName("no code outside the store reads a hash or event field by name")
  void fieldsAreReadThroughTypedAccessors() {
    // the field names live in the store contract and its adapters (the Redis adapter, the
    // in-process store under runtime.store), which write them; everyone else reads typed accessors
    DescribedPredicate<JavaMethodCall> rawRead =
        DescribedPredicate.describe(
            "BreakerSnapshot.fields()/number(String) or BreakerEvent.fields()/field(String)",
            call -> {
              String owner = call.getTargetOwner().getName();
              String name = call.getName();
              boolean raw =
                  owner.equals(BreakerSnapshot.class.getName())
                          && (name.equals("fields") || name.equals("number"))
                      || owner.equals(BreakerEvent.class.getName())
                          && (name.equals("fields") || name.equals("field"));
              return raw && !SHOWS_FIELDS_AS_STORED.contains(call.getOrigin().getFullName());
            });
    noClasses()
        .that()
        .resideOutsideOfPackages("io.breakerctl.runtime.store..", "io.breakerctl.runtime.redis..")
        .should()
        .callMethodWhere(rawRead)
        .check(main);
  }

  @Test
  @DisplayName("no source file of the runtime is above 500 lines: a job that grows gets a class")
  void runtimeClassesStaySmall() throws java.io.IOException {
    java.nio.file.Path root = java.nio.file.Path.of("src/main/java/io/breakerctl/runtime");
    java.util.List<String> large;
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(root)) {
      large =
          files
              .filter(f -> f.toString().endsWith(".java"))
              .filter(f -> lines(f) > 500)
              .map(f -> root.relativize(f) + " (" + lines(f) + " lines)")
              .toList();
    }
    org.assertj.core.api.Assertions.assertThat(large).as("runtime files above 500 lines").isEmpty();
  }

  private static long lines(java.nio.file.Path f) {
    try (java.util.stream.Stream<String> l = java.nio.file.Files.lines(f)) {
      return l.count();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
