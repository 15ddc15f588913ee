package io.breakerctl.cli;

/** Entry point of the {@code breakerctl} executable jar. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.out.println("breakerctl " + Main.class.getPackage().getImplementationVersion());
  }
}
