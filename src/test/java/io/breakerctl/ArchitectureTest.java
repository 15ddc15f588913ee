package io.breakerctl;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
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
}
