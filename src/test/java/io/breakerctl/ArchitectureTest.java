package io.breakerctl;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.breakerctl.runtime.redis.RedisFleetStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The house's rules, read from the compiled classes (not from import lines): the store contract
 * knows no adapter, the runtime is a library below every front end, the CLI never reaches the
 * console, and no packages depend on each other in a circle: the top-level ones, the CLI's, and the
 * runtime's sub-packages. (The runtime's own package still holds both the API a service uses and
 * the implementation that uses the control plane and the Redis adapter, which use parts of that API
 * back: the cycle between {@code io.breakerctl.runtime} and its {@code control} sub-packages goes
 * once the implementation leaves the API package.)
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
  @DisplayName("the CLI and the console touch no Redis connection, key layout or MongoDB client")
  void theFrontEndGoesThroughTheRuntime() {
    noClasses()
        .that()
        .resideInAnyPackage("io.breakerctl.cli..", "io.breakerctl.console..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.lettuce..")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("io.breakerctl.runtime.redis.BreakerKeys")
        .orShould()
        .dependOnClassesThat()
        .haveFullyQualifiedName("com.mongodb.client.MongoClients")
        .orShould()
        .callMethod(RedisFleetStore.class, "keys")
        .orShould()
        .callMethod(RedisFleetStore.class, "connection")
        .check(main);
  }

  @Test
  @DisplayName(
      "the control plane, the console and the sandbox use the store ports, never the adapter")
  void onlyTheCompositionNamesRedis() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.breakerctl.runtime.control..",
            "io.breakerctl.runtime.fallback..",
            "io.breakerctl.console..",
            "io.breakerctl.sandbox..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.breakerctl.runtime.redis..")
        .check(main);
  }

  @Test
  @DisplayName(
      "the CLI names the Redis adapter only where it connects or reads connection settings")
  void theCliNamesRedisOnlyWhereItConnects() {
    noClasses()
        .that()
        .resideInAPackage("io.breakerctl.cli..")
        .and()
        .doNotHaveSimpleName("ServiceFactory") // connects the commands' store
        .and()
        .doNotHaveSimpleName("CompleteCommand") // connects for live completions
        .and()
        .doNotHaveSimpleName("DemoCommand") // connects the demo's fleet
        .and()
        .doNotHaveSimpleName("WriteAccess") // which ACL user the settings authenticate as
        .and()
        .doNotHaveSimpleName("ConfigCheck") // the key prefix's rules
        .and()
        .doNotHaveSimpleName("ConfigSetContext") // the same, on set-context
        .and()
        .doNotHaveSimpleName("ErrorPolicy") // the TLS failure kinds of a connect
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.breakerctl.runtime.redis..")
        .check(main);
  }

  @Test
  @DisplayName("no circle between the top-level packages (cli, console, runtime, sandbox)")
  void noCyclesAtTheTop() {
    slices().matching("io.breakerctl.(*)..").should().beFreeOfCycles().check(main);
  }

  @Test
  @DisplayName("no circle between the CLI's packages")
  void noCyclesInTheCli() {
    slices().matching("io.breakerctl.cli.(*)..").should().beFreeOfCycles().check(main);
  }

  @Test
  @DisplayName("no circle between the runtime's sub-packages")
  void noCyclesBetweenRuntimeSubPackages() {
    slices().matching("io.breakerctl.runtime.(*)..").should().beFreeOfCycles().check(main);
  }
}
