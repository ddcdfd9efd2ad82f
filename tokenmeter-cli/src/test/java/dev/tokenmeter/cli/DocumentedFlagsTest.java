package dev.tokenmeter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every {@code --flag} the README and docs/ name is an option of some tokenmeter command (read
 * from the command line's own model), or one of the other tools' flags listed below with the tool
 * it belongs to: a renamed or removed option left in the docs fails here. And the other way: every
 * long option of every command is named in the README or a page of docs/, so a new flag that only
 * its {@code --help} describes fails too.
 */
class DocumentedFlagsTest {
  private static final Pattern FLAG = Pattern.compile("(?<![\\w-])(--[a-z][a-z0-9-]*[a-z0-9])(?![\\w-]*\\*)");
  /** Flags of other programs that the docs quote, and whose they are. */
  private static final Map<String, String> OTHERS = Map.ofEntries(
      Map.entry("--enable-mixed-chunk", "SGLang's server"),
      Map.entry("--enable-dp-attention", "SGLang's server"),
      Map.entry("--dp-size", "SGLang's server"),
      Map.entry("--ep-size", "SGLang's server"),
      Map.entry("--moe-dense-tp-size", "SGLang's server"),
      Map.entry("--enable-dp-lm-head", "SGLang's server"),
      Map.entry("--moe-a2a-backend", "SGLang's server"),
      Map.entry("--swa-full-tokens-ratio", "SGLang's server"),
      Map.entry("--enable-expert-parallel", "vLLM's serve"),
      Map.entry("--data-parallel-size", "vLLM's serve"),
      Map.entry("--enable-native-access", "the java launcher"),
      Map.entry("--generate-cds-archive", "the java launcher (CDS)"),
      Map.entry("--events", "the jfr tool"),
      Map.entry("--goodput", "vLLM's bench serve"),
      Map.entry("--ignore-eos", "vLLM's bench serve"),
      Map.entry("--metrics", "llama.cpp's server"),
      Map.entry("--request-count", "NVIDIA AIPerf / GenAI-Perf"),
      Map.entry("--warmup-request-count", "NVIDIA AIPerf / GenAI-Perf"),
      Map.entry("--measurement-interval", "NVIDIA GenAI-Perf"),
      Map.entry("--warmup-round", "SGLang's bench_serving"),
      Map.entry("--time-stamp-precision", "tcpdump"),
      Map.entry("--query-gpu", "nvidia-smi (bench --gpu-metrics nvml)"),
      Map.entry("--format", "nvidia-smi (bench --gpu-metrics nvml)"),
      Map.entry("--help-query-gpu", "nvidia-smi"));

  @Test
  void everyDocumentedFlagExists() throws IOException {
    Set<String> options = new HashSet<>();
    collect(new CommandLine(new Main()), options);
    List<String> unknown = new ArrayList<>();
    int checked = 0;
    List<Path> docs;
    try (Stream<Path> files = Files.list(Path.of("docs"))) {
      docs = Stream.concat(Stream.of(Path.of("README.md"), Path.of("CONTRIBUTING.md")),
          files.filter(p -> p.toString().endsWith(".md"))).toList();
    }
    for (Path doc : docs) {
      List<String> lines = Files.readAllLines(doc);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = FLAG.matcher(lines.get(i));
        while (m.find()) {
          checked++;
          String flag = m.group(1);
          if (!options.contains(flag) && !OTHERS.containsKey(flag)) {
            unknown.add(doc + ":" + (i + 1) + " " + flag);
          }
        }
      }
    }
    assertThat(checked).as("flags found in the docs").isGreaterThan(200);
    assertThat(unknown).as("flags the docs name that no tokenmeter command has (nor another tool listed here)").isEmpty();
  }

  @Test
  void everyOptionIsDocumented() throws IOException {
    StringBuilder text = new StringBuilder();
    for (Path doc : docs()) {
      text.append(Files.readString(doc)).append('\n');
    }
    Set<String> documented = new HashSet<>();
    Matcher m = FLAG.matcher(text);
    while (m.find()) {
      documented.add(m.group(1));
    }
    List<String> undocumented = new ArrayList<>();
    int checked = 0;
    for (CommandLine c : commands(new CommandLine(new Main()), new ArrayList<>())) {
      for (CommandLine.Model.OptionSpec o : c.getCommandSpec().options()) {
        if (o.usageHelp() || o.versionHelp() || o.hidden()) {
          continue;
        }
        List<String> longNames = Stream.of(o.names()).filter(n -> n.startsWith("--")).toList();
        if (longNames.isEmpty()) {
          continue;
        }
        checked++;
        if (longNames.stream().noneMatch(documented::contains)
            && longNames.stream().noneMatch(n -> documented.contains("--no-" + n.substring(2)))) {
          undocumented.add(c.getCommandSpec().qualifiedName() + " " + String.join("/", longNames));
        }
      }
    }
    assertThat(checked).as("options of the commands").isGreaterThan(200);
    assertThat(undocumented).as("options that no page of the README or docs/ names").isEmpty();
  }

  private static List<Path> docs() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("docs"))) {
      return Stream.concat(Stream.of(Path.of("README.md"), Path.of("CONTRIBUTING.md")),
          files.filter(p -> p.toString().endsWith(".md"))).toList();
    }
  }

  private static List<CommandLine> commands(CommandLine c, List<CommandLine> into) {
    if (!(c.getCommandSpec().userObject() instanceof CommandLine.HelpCommand) && !into.contains(c)) {
      into.add(c);
      c.getSubcommands().values().forEach(s -> commands(s, into));
    }
    return into;
  }

  private static void collect(CommandLine c, Set<String> into) {
    c.getCommandSpec().options().forEach(o -> into.addAll(List.of(o.names())));
    c.getSubcommands().values().forEach(s -> collect(s, into));
  }
}
