package dev.tokenmeter.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tokenmeter.tokenizer.Tokenizer;
import dev.tokenmeter.tokenizer.TokenizerResolver;
import dev.tokenmeter.workload.JsonlCounter;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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

  private static final ObjectMapper MAPPER = new ObjectMapper();

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
    String input = readInput();
    if (json) {
      for (Tokenizer t : toks) {
        out.println(jsonLine(t, input));
      }
    } else {
      out.print(table(toks, input));
    }
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

  /** Words: runs of non-white-space characters. */
  static long words(String s) {
    long n = 0;
    boolean inWord = false;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      boolean space = Character.isWhitespace(cp);
      if (!space && !inWord) {
        n++;
      }
      inWord = !space;
      i += Character.charCount(cp);
    }
    return n;
  }

  private String table(List<Tokenizer> toks, String input) {
    long chars = input.codePointCount(0, input.length());
    long words = words(input);
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%d characters, %d words%n", chars, words));
    int width = Math.max(12, toks.stream().mapToInt(t -> t.name().length()).max().orElse(0));
    String nameFormat = "%-" + width + "s";
    String header = String.format(Locale.ROOT, nameFormat + " %10s %12s %12s", "tokenizer", "tokens", "chars/token", "words/token");
    sb.append(header).append(priceIn == null ? "" : String.format(Locale.ROOT, " %12s", "cost USD")).append('\n');
    for (Tokenizer t : toks) {
      int[] idsOf = t.encode(input);
      int n = idsOf.length;
      sb.append(String.format(Locale.ROOT, nameFormat + " %10d %12s %12s", t.name(), n, ratio(chars, n), ratio(words, n)));
      if (priceIn != null) {
        sb.append(String.format(Locale.ROOT, " %12.6f", cost(n)));
      }
      sb.append('\n');
      if (ids) {
        for (int id : idsOf) {
          sb.append(String.format(Locale.ROOT, "  %8d  %s%n", id, quote(t.piece(id))));
        }
      }
    }
    return sb.toString();
  }

  private static String ratio(long a, int n) {
    return n == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) a / n);
  }

  private double cost(long tokens) {
    return tokens * priceIn / 1_000_000.0;
  }

  /** A piece as a JSON string literal, so spaces, newlines and control characters show. */
  private static String quote(String piece) {
    try {
      return MAPPER.writeValueAsString(piece);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String jsonLine(Tokenizer t, String input) throws IOException {
    int[] idsOf = t.encode(input);
    StringWriter w = new StringWriter();
    try (JsonGenerator g = MAPPER.getFactory().createGenerator(w)) {
      g.writeStartObject();
      g.writeStringField("tokenizer", t.name());
      g.writeNumberField("count", idsOf.length);
      g.writeNumberField("chars", input.codePointCount(0, input.length()));
      g.writeNumberField("words", words(input));
      if (priceIn != null) {
        g.writeNumberField("cost_usd", cost(idsOf.length));
      }
      if (ids) {
        g.writeArrayFieldStart("ids");
        for (int id : idsOf) {
          g.writeNumber(id);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("pieces");
        for (int id : idsOf) {
          g.writeString(t.piece(id));
        }
        g.writeEndArray();
      }
      g.writeEndObject();
    }
    return w.toString();
  }
}
