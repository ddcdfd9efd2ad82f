package dev.tokenmeter.cli;

import dev.tokenmeter.tokenizer.Tokenizer;
import dev.tokenmeter.tokenizer.TokenizerResolver;
import dev.tokenmeter.workload.JsonlCounter;
import dev.tokenmeter.workload.TextCounts;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code tokenmeter tokens}: counts the tokens of a text, a file, stdin or a JSONL dataset. */
@Command(
    name = "tokens",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Counts tokens with one or several tokenizers side by side: tokens, characters and words per token, cost.",
      "Text from the arguments, --file, or standard input; --input-jsonl counts every record of a dataset."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  tokenmeter tokens -t o200k_base,cl100k_base 'How many tokens is this?'",
      "  tokenmeter tokens -t gpt-4o -t path/to/tokenizer.json --file prompt.txt \\",
      "      --ids",
      "  tokenmeter tokens -t o200k_base --input-jsonl dataset.jsonl --field text"
    })
final class TokensCommand implements Callable<Integer> {
  @Parameters(paramLabel = "TEXT", arity = "0..*", description = "Text to count (joined by spaces). Default: --file, else standard input.")
  List<String> text = new ArrayList<>();

  @Option(names = {"-t", "--tokenizer"}, split = ",", paramLabel = "SPEC", description = "Tokenizer(s), repeatable or comma-separated: o200k_base, cl100k_base, a model name (gpt-4o), path/to/tokenizer.json, hf:org/name (default: o200k_base).")
  List<String> tokenizers = new ArrayList<>();

  @Option(names = "--tokenizer-map", paramLabel = "FILE", description = "Model names or globs to tokenizers (JSON object), over ~/.config/tokenmeter/tokenizers.json and the built-in map.")
  Path tokenizerMap;

  @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "Count this file (UTF-8).")
  Path file;

  @Option(names = "--input-jsonl", paramLabel = "FILE", description = "Count every record of a JSON Lines file: one JSON line per record and tokenizer with the record's id, then totals.")
  Path inputJsonl;

  @Option(names = "--field", paramLabel = "NAME", description = "With --input-jsonl: the string field to count (default: ${DEFAULT-VALUE}).")
  String field = "text";

  @Option(names = "--threads", paramLabel = "N", description = "With --input-jsonl: counting threads (default: the number of cores). Output stays in input order.")
  Integer threads;

  @Option(names = "--ids", description = "Show the token ids and their pieces.")
  boolean ids;

  @Option(names = "--json", description = "One JSON object per tokenizer (tokenizer, count, chars, words; ids with --ids).")
  boolean json;

  @Option(names = "--price-in", paramLabel = "USD", description = "Price per 1M input tokens: adds the cost.")
  Double priceIn;

  @Override
  public Integer call() throws IOException {
    if (priceIn != null && !(priceIn >= 0)) {
      throw new UsageException("--price-in must be a non-negative number of USD per 1M tokens");
    }
    List<Tokenizer> toks = resolve();
    PrintStream out = System.out;
    if (inputJsonl != null) {
      if (!text.isEmpty() || file != null) {
        throw new UsageException("--input-jsonl counts a dataset; give no TEXT or --file with it");
      }
      if (threads != null && threads < 1) {
        throw new UsageException("--threads must be at least 1");
      }
      int n = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
      new JsonlCounter(toks, field, priceIn, n).count(inputJsonl, out);
      return Main.EXIT_OK;
    }
    TextCounts counts = new TextCounts(toks, priceIn, ids);
    out.print(json ? counts.jsonLines(readInput()) : counts.table(readInput()));
    out.flush();
    return Main.EXIT_OK;
  }

  private List<Tokenizer> resolve() {
    TokenizerResolver r = TokenizerResolver.system(tokenizerMap);
    List<String> specs = tokenizers.isEmpty() ? List.of("o200k_base") : tokenizers;
    return specs.stream().map(r::resolve).toList();
  }

  private String readInput() throws IOException {
    if (!text.isEmpty()) {
      if (file != null) {
        throw new UsageException("give TEXT or --file, not both");
      }
      return String.join(" ", text);
    }
    if (file != null) {
      try {
        return Files.readString(file, StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        throw new UsageException("file not found: " + file);
      }
    }
    try (InputStream in = System.in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
