package dev.tokenmeter.cli;

/** Entry point of the {@code tokenmeter} command. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.out.println("tokenmeter: under construction");
  }
}
