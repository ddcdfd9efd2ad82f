package dev.tokenmeter.report;

/**
 * Text put into GitHub-flavoured Markdown tables and lines ({@code compare.md}, {@code --markdown}
 * SLO verdicts): the one escaping rule of every Markdown renderer. Stateless.
 */
final class Markdown {
  private Markdown() {}

  /**
   * {@code s} safe inside a table cell: a pipe would end the cell, so it is written {@code \|}; a
   * line break would end the row, so it becomes a space.
   */
  static String escape(String s) {
    return s.replace("|", "\\|").replace("\r\n", " ").replace('\n', ' ').replace('\r', ' ');
  }
}
