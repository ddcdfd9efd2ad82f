package dev.tokenmeter.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The help a newcomer reads: every command's one-line summary (what {@code tokenmeter --help} and
 * {@code proxy --help} list) is a whole sentence, every command that does something ends its help
 * with examples, and every example is a command line the parser accepts for that command.
 */
class HelpTextTest {

  @Test
  void everySummaryIsAWholeSentence() {
    for (CommandLine c : commands()) {
      String summary = summary(c.getCommandSpec());
      assertTrue(summary.endsWith("."), () -> name(c) + ": its summary is cut mid-sentence in the command list: " + summary);
      assertTrue(summary.length() <= 140, () -> name(c) + ": its summary is " + summary.length() + " characters: " + summary);
    }
  }

  @Test
  void everyCommandEndsWithExamplesTheParserAccepts() {
    int examples = 0;
    for (CommandLine c : commands()) {
      CommandSpec spec = c.getCommandSpec();
      if (spec.userObject() == null || !(spec.userObject() instanceof java.util.concurrent.Callable<?>)) {
        continue; // a group (sim) that only lists its subcommands
      }
      assertEquals("%nExamples:%n", spec.usageMessage().footerHeading(), name(c) + " has no Examples footer");
      List<String> lines = examples(spec.usageMessage().footer());
      assertFalse(lines.isEmpty(), name(c) + " has no example");
      for (String line : lines) {
        List<String> words = shellWords(line);
        assertEquals("tokenmeter", words.getFirst(), name(c) + ": " + line);
        String[] args = words.subList(1, words.size()).toArray(String[]::new);
        CommandLine.ParseResult parsed;
        try {
          parsed = new CommandLine(new Main()).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
          fail(name(c) + ": the example '" + line + "' does not parse: " + e.getMessage());
          return;
        }
        List<CommandLine> path = parsed.asCommandLineList();
        assertTrue(path.stream().anyMatch(p -> p.getCommandSpec().qualifiedName().equals(spec.qualifiedName())),
            () -> name(c) + ": the example '" + line + "' runs another command");
        examples++;
      }
    }
    assertTrue(examples >= 20, "only " + examples + " examples");
  }

  @Test
  void theSynopsisOfABigCommandIsOneLine() {
    for (String name : List.of("bench", "demo", "simulate", "proxy", "compare")) {
      CommandLine c = new CommandLine(new Main()).getSubcommands().get(name);
      String synopsis = c.getHelp().synopsis(0);
      assertEquals(1, synopsis.strip().lines().count(), () -> name + "'s synopsis: " + synopsis);
    }
  }

  @Test
  void everySynopsisFitsInThreeLines() {
    for (CommandLine c : commands()) {
      String synopsis = c.getHelp().synopsis(0);
      assertTrue(synopsis.strip().lines().count() <= 3,
          () -> name(c) + "'s synopsis runs past 3 lines (abbreviateSynopsis = true gives [OPTIONS]): " + synopsis);
    }
  }

  private static List<CommandLine> commands() {
    List<CommandLine> all = new ArrayList<>();
    collect(new CommandLine(new Main()), all);
    return all;
  }

  private static void collect(CommandLine c, List<CommandLine> into) {
    if (c.getCommandSpec().userObject() instanceof CommandLine.HelpCommand) {
      return;
    }
    into.add(c);
    c.getSubcommands().values().stream().distinct().forEach(s -> collect(s, into));
  }

  private static String name(CommandLine c) {
    return c.getCommandSpec().qualifiedName();
  }

  private static String summary(CommandSpec spec) {
    String[] header = spec.usageMessage().header();
    String[] description = spec.usageMessage().description();
    return (header.length > 0 ? header[0] : description.length > 0 ? description[0] : "").strip();
  }

  /** The footer's example commands, continuation lines ({@code \}) joined, {@code %%} unescaped. */
  static List<String> examples(String[] footer) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    for (String raw : footer) {
      String line = raw.replace("%%", "%").strip();
      if (!line.startsWith("tokenmeter") && cur.isEmpty()) {
        continue; // prose
      }
      boolean more = line.endsWith("\\");
      cur.append(more ? line.substring(0, line.length() - 1) : line).append(' ');
      if (!more) {
        out.add(cur.toString().strip());
        cur.setLength(0);
      }
    }
    return out;
  }

  /** Splits a shell command line on spaces, keeping single- and double-quoted words whole. */
  static List<String> shellWords(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    char quote = 0;
    boolean any = false;
    for (char ch : line.toCharArray()) {
      if (quote != 0) {
        if (ch == quote) {
          quote = 0;
        } else {
          cur.append(ch);
        }
      } else if (ch == '\'' || ch == '"') {
        quote = ch;
        any = true;
      } else if (ch == ' ') {
        if (any || !cur.isEmpty()) {
          words.add(cur.toString());
          cur.setLength(0);
          any = false;
        }
      } else {
        cur.append(ch);
      }
    }
    if (quote != 0) {
      throw new IllegalArgumentException("unclosed quote in: " + line);
    }
    if (any || !cur.isEmpty()) {
      words.add(cur.toString());
    }
    return words;
  }
}
